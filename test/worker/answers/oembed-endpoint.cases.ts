// Issue 24 item 5: GET /oembed (an oEmbed 1.0 document for any media URL) and the share page GET /v. Documents
// are checked against the required fields of oembed.com section 2.3.4 by the small validator below, written
// from the spec's text rather than from the service's schema.
import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { inspect, media, origin } from "../../../testkit/worker/helpers.ts";
import { shareIdOf } from "../../../shared/format/share-id.ts";

/** oembed.com 2.3.4: the problems of a document (empty when it is valid). */
function oembedProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const isText = (v: unknown) => typeof v === "string" && v.length > 0;
  const isPixels = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v > 0;
  if (!["photo", "video", "link", "rich"].includes(doc.type as string)) problems.push("type must be photo, video, link or rich");
  if (doc.version !== "1.0") problems.push('version must be "1.0"');
  for (const f of ["title", "author_name", "author_url", "provider_name", "provider_url", "thumbnail_url"]) {
    if (f in doc && !isText(doc[f])) problems.push(`${f} must be a string`);
  }
  if ("cache_age" in doc && !(typeof doc.cache_age === "number" && Number.isInteger(doc.cache_age) && doc.cache_age >= 0)) problems.push("cache_age must be a non-negative integer");
  const thumbs = ["thumbnail_url", "thumbnail_width", "thumbnail_height"].filter((f) => f in doc);
  if (thumbs.length !== 0 && thumbs.length !== 3) problems.push("thumbnail_url, thumbnail_width and thumbnail_height come together");
  if ("thumbnail_width" in doc && !isPixels(doc.thumbnail_width)) problems.push("thumbnail_width must be positive pixels");
  if ("thumbnail_height" in doc && !isPixels(doc.thumbnail_height)) problems.push("thumbnail_height must be positive pixels");
  const required: Record<string, string[]> = { photo: ["url", "width", "height"], video: ["html", "width", "height"], rich: ["html", "width", "height"], link: [] };
  for (const f of required[doc.type as string] ?? []) {
    if (!(f in doc)) problems.push(`${doc.type} needs ${f}`);
    else if ((f === "width" || f === "height") && !isPixels(doc[f])) problems.push(`${f} must be positive pixels`);
    else if ((f === "url" || f === "html") && !isText(doc[f])) problems.push(`${f} must be a string`);
  }
  return problems;
}

async function oembed(query: string) {
  const response = await SELF.fetch(`http://service/oembed?${query}`);
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

async function sharePage(url: string) {
  const response = await SELF.fetch(`http://service/v?url=${encodeURIComponent(url)}`);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

const q = (url: string, extra = "") => `url=${encodeURIComponent(url)}${extra}`;

describe("GET /oembed documents", () => {
  it("a video: type video with the <video> player, its own size, provider and cache_age", async () => {
    const url = media("video.mp4");
    const r = await oembed(q(url, "&format=json"));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(oembedProblems(r.body)).toEqual([]);
    expect(r.body).toMatchObject({ type: "video", version: "1.0", width: 640, height: 360, provider_name: expect.any(String), provider_url: "http://service/" });
    expect(r.body.html).toMatch(/^<video [^<>]*><\/video>$/);
    expect(r.body.html).toContain(`src="${url.replace(/&/g, "&amp;")}"`);
    expect(r.body.html).toContain(' width="640" height="360"');
    expect(r.body.title).toBe("video.mp4");
  });

  it("once the previews exist: the generated thumbnail (three fields, absolute URL) and the record's life as cache_age", async () => {
    const url = media("video.mp4");
    const full = await inspect(url, "profile=full");
    expect(full.status).toBe(200);
    const r = await oembed(q(url));
    expect(r.status).toBe(200);
    expect(oembedProblems(r.body)).toEqual([]);
    const [w, h] = (full.body.data.preview.thumbnail.dimensions as string).split("x").map(Number);
    expect(r.body).toMatchObject({ thumbnail_url: new URL(full.body.data.preview.thumbnail.url, "http://service").href, thumbnail_width: w, thumbnail_height: h });
    expect(r.body.thumbnail_url).toMatch(/^http:\/\/service\/api\/v1\/thumbnails\//);
    expect(r.body.cache_age).toBeGreaterThan(60);
    expect(r.headers.get("cache-control")).toBe(`public, max-age=${r.body.cache_age}`);
    expect(r.body.html).toContain(`poster="${r.body.thumbnail_url}"`);
  });

  it("an audio file: type video with the <audio> player and the audio player's size", async () => {
    const audio = media("audio.mp3");
    const r = await oembed(q(audio));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(oembedProblems(r.body)).toEqual([]);
    expect(r.body.type).toBe("video");
    expect(r.body.html).toMatch(/^<audio [^<>]* controls[ >][^<>]*><\/audio>$|^<audio [^<>]*controls[^<>]*><\/audio>$/);
    expect(r.body.width).toBeGreaterThan(r.body.height);
    // The element carries the document's size (a bare <audio> is drawn at the browser's own 300x54).
    expect(r.body.html).toContain(`style="width:${r.body.width}px;height:${r.body.height}px"`);
    expect(r.body.share_url).toBe(`http://service/v/${shareIdOf(audio)}`);
    // maxwidth narrows the control bar without squashing it (no aspect ratio to keep).
    const narrow = await oembed(`${q(audio)}&maxwidth=200`);
    expect(narrow.body).toMatchObject({ width: 200, height: r.body.height });
    expect(narrow.body.html).toContain(`style="width:200px;height:${r.body.height}px"`);
  });

  it("an image: type photo with url and the image's size", async () => {
    const url = media("image-1280x720.png");
    const r = await oembed(q(url));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(oembedProblems(r.body)).toEqual([]);
    expect(r.body).toMatchObject({ type: "photo", url, width: 1280, height: 720 });
    expect(r.body.html).toBeUndefined();
  });

  it("maxwidth/maxheight scale down keeping the aspect ratio, never up", async () => {
    const url = media("image-1280x720.png");
    const sizes: [string, number, number][] = [
      ["&maxwidth=320", 320, 180],
      ["&maxheight=90", 160, 90],
      ["&maxwidth=320&maxheight=90", 160, 90],
      ["&maxwidth=4000&maxheight=4000", 1280, 720],
      ["&maxwidth=333", 333, 187],
    ];
    for (const [extra, width, height] of sizes) {
      const r = await oembed(q(url, extra));
      expect(r.status).toBe(200);
      expect([r.body.width, r.body.height], extra).toEqual([width, height]);
    }
    const video = await oembed(q(media("video.mp4"), "&maxwidth=320"));
    expect([video.body.width, video.body.height]).toEqual([320, 180]);
    expect(video.body.html).toContain(' width="320" height="180"');
  });

  it("a thumbnail larger than maxwidth is left out (oEmbed: the thumbnail must respect it)", async () => {
    const url = media("video.mp4");
    expect((await inspect(url, "profile=full")).status).toBe(200);
    const small = await oembed(q(url, "&maxwidth=16"));
    expect(small.status).toBe(200);
    expect(oembedProblems(small.body)).toEqual([]);
    expect(small.body.thumbnail_url).toBeUndefined();
  });

  it("a hostile title is escaped in the player html and in the share page", async () => {
    const hostile = `"><script>alert(1)<!--.mp4`;
    const url = media("video.mp4", `disposition=${encodeURIComponent(`attachment; filename*=UTF-8''${encodeURIComponent(hostile)}`)}`);
    const r = await oembed(q(url));
    expect(r.status).toBe(200);
    // The JSON title is the text as it is (consumers escape text); nothing of it reaches the html unescaped.
    expect(r.body.title).toBe(hostile);
    expect(r.body.html).not.toContain("<script");
    const page = await sharePage(url);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("<script");
    // Nothing of the title closes an attribute or opens a tag.
    expect(page.text).not.toContain(`"><script`);
    expect(page.text).toContain(`<title>&quot;&gt;&lt;script&gt;alert(1)&lt;!--.mp4</title>`);
    expect(page.text).toContain(`<meta property="og:title" content="&quot;&gt;&lt;script&gt;alert(1)&lt;!--.mp4">`);
  });
});

describe("GET /oembed refusals", () => {
  it("404 in the error envelope for a web page", async () => {
    const r = await oembed(q(`${origin}/html-page?title=Hello&n=${crypto.randomUUID()}`));
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: "error", error: { code: "NOT_FOUND" } });
    expect((await sharePage(`${origin}/html-page?title=Hello&n=${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("404 RESOURCE_NOT_FOUND when the origin answers 404", async () => {
    const r = await oembed(q(`${origin}/media/missing-${crypto.randomUUID()}.mp4`));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("RESOURCE_NOT_FOUND");
  });

  it("501 for format=xml (and any format but json), before the origin is asked", async () => {
    for (const format of ["xml", "yaml"]) {
      const r = await oembed(q(media("video.mp4"), `&format=${format}`));
      expect(r.status).toBe(501);
      expect(r.body).toMatchObject({ status: "error", error: { code: "NOT_IMPLEMENTED" } });
      expect(r.body.error.message).toContain("json");
    }
  });

  it("the inspection's errors: SSRF_BLOCKED 403, INVALID_URL 400, and 400 for a bad maxwidth or a missing url", async () => {
    expect((await oembed(q("http://private.test/a.mp4"))).body.error.code).toBe("SSRF_BLOCKED");
    expect((await oembed(q("http://private.test/a.mp4"))).status).toBe(403);
    expect((await sharePage("http://private.test/a.mp4")).status).toBe(403);
    expect((await oembed(q("ftp://example.com/a.mp4"))).status).toBe(400);
    const bad = await oembed(q(media("video.mp4"), "&maxwidth=-3"));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_PARAMETER");
    expect((await oembed("format=json")).status).toBe(400);
  });

  it("POST is 405", async () => {
    const response = await SELF.fetch("http://service/oembed?url=x", { method: "POST" });
    expect(response.status).toBe(405);
  });
});

describe("GET /v share page", () => {
  it("plays the video with the service's player and carries discovery, OpenGraph and Twitter player tags, under a strict CSP", async () => {
    const url = media("video.mp4");
    const page = await sharePage(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const t = page.text;
    const enc = encodeURIComponent(url);
    expect(t).toContain(`<link rel="alternate" type="application/json+oembed" href="http://service/oembed?url=${enc}&amp;format=json"`);
    expect(t).toContain(`<meta property="og:type" content="video.other">`);
    expect(t).toContain(`<meta property="og:video" content="${url.replace(/&/g, "&amp;")}">`);
    expect(t).toContain(`<meta property="og:video:type" content="video/mp4">`);
    expect(t).toContain(`<meta property="og:video:width" content="640">`);
    expect(t).toContain(`<meta property="og:video:height" content="360">`);
    expect(t).toContain(`<meta name="twitter:card" content="player">`);
    expect(t).toContain(`<meta name="twitter:player" content="http://service/v/${shareIdOf(url)}">`);
    expect(t).toContain(`<meta property="og:url" content="http://service/v/${shareIdOf(url)}">`);
    expect(t).toContain(`<meta name="twitter:player:width" content="640">`);
    expect(t).toMatch(/<video [^<>]*src="[^"]*video\.mp4[^"]*"[^<>]*controls/);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`media-src ${new URL(url).origin}`);
    expect(csp).not.toMatch(/script-src|unsafe/);
    // The discovery link answers the same document as /oembed.
    const href = /type="application\/json\+oembed" href="([^"]+)"/.exec(t)![1]!.replace(/&amp;/g, "&");
    const doc = await (await SELF.fetch(href)).json();
    expect(oembedProblems(doc as Record<string, unknown>)).toEqual([]);
  });

  it("an image gets og:image and a large-image card; an audio file gets og:audio and the player card", async () => {
    const image = await sharePage(media("image-1280x720.png"));
    expect(image.status).toBe(200);
    expect(image.text).toMatch(/<meta property="og:image" content="[^"]*image-1280x720\.png[^"]*">/);
    expect(image.text).toContain(`<meta name="twitter:card" content="summary_large_image">`);
    expect(image.headers.get("content-security-policy")).toContain(`img-src ${origin}`);
    const audioUrl = media("audio.mp3");
    const audio = await sharePage(audioUrl);
    expect(audio.status).toBe(200);
    expect(audio.text).toContain(`<meta property="og:audio:type" content="audio/mpeg">`);
    expect(audio.text).toContain(`<meta property="og:type" content="music.song">`);
    // No twitter:player:stream for audio: metascraper-video 5.49 reports any stream whose content type ends in a
    // video extension as video ("audio/mpeg" ends in "mpeg"), so an MP3 unfurled as a video.
    expect(audio.text).not.toContain("twitter:player:stream");
    expect(audio.text).toMatch(/<audio [^<>]*controls/);
    // No picture of its own: the generated card, fetched at its /v/{id} address.
    const card = `http://service/v/${shareIdOf(audioUrl)}/card.png`;
    expect(audio.text).toContain(`<meta property="og:image" content="${card}">`);
    const png = await SELF.fetch(card);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await png.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });

  it("/v/{id} is the same page as /v?url=, and a bad id is 400 INVALID_URL", async () => {
    const url = media("video.mp4");
    const byId = await SELF.fetch(`http://service/v/${shareIdOf(url)}`);
    expect(byId.status).toBe(200);
    expect(await byId.text()).toBe((await sharePage(url)).text);
    for (const id of ["a.b", "QQ", shareIdOf("javascript:alert(1)")]) {
      const bad = await SELF.fetch(`http://service/v/${id}`);
      expect(bad.status, id).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("INVALID_URL");
    }
  });
});

describe("rate limit", () => {
  it("/oembed and /v are counted in the same per-client window as /api/v1/inspect", async () => {
    const limited = { ...(env as object), INSPECT_RATE_LIMIT: "3", INSPECT_RATE_PERIOD_SECONDS: "60", INSPECT_RATE_LIMITER: undefined } as unknown as Env;
    const app = createApp();
    const ip = `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;
    const call = (path: string) => app.request(`http://service${path}`, { headers: { "cf-connecting-ip": ip } }, limited);
    const url = encodeURIComponent(media("png-opaque.png"));
    const statuses: number[] = [];
    for (const path of [`/oembed?url=${url}`, `/v?url=${url}`, `/api/v1/inspect?url=${url}`, `/oembed?url=${url}`, `/v?url=${url}`]) statuses.push((await call(path)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await call(`/oembed?url=${url}&format=xml`);
    expect(refused.status).toBe(429);
    // The /v/{id} page and its card run an inspection each too.
    const id = shareIdOf(decodeURIComponent(url));
    expect((await call(`/v/${id}`)).status).toBe(429);
    expect((await call(`/v/${id}/card.png`)).status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "RATE_LIMITED" } });
  });
});
