// Issue 5 items 1, 2 and 4 over real HTTP: hosted-media URLs recognised by their shape, enriched through the
// loopback oEmbed fake (OEMBED_BASE_URL), answered in every profile. The fake picks its behaviour from the
// media URL ("private" -> 401, "gone" -> 404, "down" -> 503, "Quot" -> a title full of HTML metacharacters)
// and logs every request at ${ORIGIN_URL}/__extra/oembed, which is how "one oEmbed call per resource" is shown.
import { shareIdOf } from "../../../shared/format/share-id.ts";
import { normalizeUrl } from "../../../worker/record/target-url.ts";
import { describe, expect, it } from "vitest";
import { inspect, origin } from "../../../testkit/worker/helpers.ts";

// Upper case and digits only, so a random id can never contain the fake's behaviour words.
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const randomChars = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => alphabet[b % alphabet.length]).join("");
/** A fresh 11-character YouTube id (optionally starting with a behaviour word), so no test meets another's cache. */
const youtubeId = (prefix = "") => prefix + randomChars(11 - prefix.length);
const vimeoId = () => String(100_000_000 + Math.floor(Math.random() * 899_999_999));
const spotifyId = () => randomChars(22);

const profiles = ["fast", "standard", "full", "embed"] as const;

/** Every request the fake oEmbed server got whose `url=` mentions this media id. */
async function oembedRequestsFor(id: string): Promise<URL[]> {
  const all = (await (await fetch(`${origin}/__extra/oembed`)).json()) as string[];
  return all.map((p) => new URL(p, "http://fake")).filter((u) => (u.searchParams.get("url") ?? "").includes(id));
}

interface ProviderCase {
  name: string;
  make: () => { id: string; url: string; sameMediaOtherTime?: string };
  canonicalUrl: (id: string) => string;
  embedUrl: (id: string) => string;
  otherEmbedUrl?: (id: string) => string;
  semanticType: "embedded-video" | "embedded-audio";
  oembedPath: string;
  /** Provider-native thumbnail known from the URL alone, else the oEmbed thumbnail_url. */
  thumbnail: (id: string) => string;
  oembedTitle: RegExp;
  iframeAllow: string;
}

const cases: ProviderCase[] = [
  {
    name: "youtube",
    make: () => {
      const id = youtubeId();
      return { id, url: `https://www.youtube.com/watch?v=${id}&t=90`, sameMediaOtherTime: `https://youtu.be/${id}?t=1m5s&si=tracking` };
    },
    canonicalUrl: (id) => `https://www.youtube.com/watch?v=${id}`,
    embedUrl: (id) => `https://www.youtube-nocookie.com/embed/${id}?start=90`,
    otherEmbedUrl: (id) => `https://www.youtube-nocookie.com/embed/${id}?start=65`,
    semanticType: "embedded-video",
    oembedPath: "/www.youtube.com/oembed",
    thumbnail: (id) => `https://i.ytimg.com/vi/${id}/hqdefault.jpg`,
    oembedTitle: /^YouTube title for /,
    iframeAllow: "encrypted-media",
  },
  {
    name: "vimeo",
    make: () => {
      const id = vimeoId();
      return { id, url: `https://vimeo.com/${id}#t=90`, sameMediaOtherTime: `https://player.vimeo.com/video/${id}#t=2m` };
    },
    canonicalUrl: (id) => `https://vimeo.com/${id}`,
    embedUrl: (id) => `https://player.vimeo.com/video/${id}#t=1m30s`,
    otherEmbedUrl: (id) => `https://player.vimeo.com/video/${id}#t=2m0s`,
    semanticType: "embedded-video",
    oembedPath: "/vimeo.com/api/oembed.json",
    thumbnail: () => "https://i.example.test/vimeo/thumb.jpg",
    oembedTitle: /^Vimeo title for /,
    iframeAllow: "fullscreen",
  },
  {
    name: "spotify",
    make: () => {
      const id = spotifyId();
      return { id, url: `https://open.spotify.com/intl-de/track/${id}?si=abc123` };
    },
    canonicalUrl: (id) => `https://open.spotify.com/track/${id}`,
    embedUrl: (id) => `https://open.spotify.com/embed/track/${id}`,
    semanticType: "embedded-audio",
    oembedPath: "/open.spotify.com/oembed",
    thumbnail: () => "https://i.example.test/spotify/thumb.jpg",
    oembedTitle: /^Spotify title for /,
    iframeAllow: "encrypted-media",
  },
];

describe.each(cases)("$name", (c) => {
  it("answers every profile from URL parsing plus one oEmbed call, title and native thumbnail even in fast", async () => {
    const { id, url } = c.make();

    // First call is `fast` and fresh: oEmbed ran before this first answer.
    const fast = await inspect(url, "profile=fast");
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    expect(fast.body.responseSource).toBe("fresh");
    const title = fast.body.data.semantic.title;
    expect(title).toMatch(c.oembedTitle);
    expect(title).toContain(id.slice(-8));
    expect(fast.body.data.preview).toEqual({ thumbnail: { url: c.thumbnail(id) } });
    expect(fast.body.projection).toEqual({ profile: "fast", hiddenFields: [] });
    expect(fast.body.data.providerData).toBeUndefined();
    expect(fast.body.data.playback.html).toBeUndefined();
    expect(fast.body.data.diagnostics).toBeUndefined();

    const bodies: Record<string, any> = { fast: fast.body };
    for (const profile of ["standard", "full"] as const) {
      const r = await inspect(url, `profile=${profile}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.responseSource).toBe("cache");
      bodies[profile] = r.body;
    }
    for (const profile of ["fast", "standard", "full"] as const) {
      const { data, processing, enrichmentSources } = bodies[profile];
      expect(processing).toEqual({
        status: "complete", completion: 1, enrichmentsPending: false,
        completedStages: ["semantic", "mediaFormat", "oembed"], pendingStages: [],
      });
      expect(enrichmentSources).toEqual({ semantic: "fresh", mediaFormat: "fresh", oembed: "fresh" });
      // finalUrl is the stored, normalised URL (no fragment, no tracking parameters); url is this caller's own.
      expect(data.identity).toEqual({
        url, finalUrl: normalizeUrl(new URL(url)), canonicalUrl: c.canonicalUrl(id), mime: "text/html", shareUrl: `http://service/v/${shareIdOf(url)}`,
      });
      expect(data.semantic).toEqual({ kind: "embed-media", semanticType: c.semanticType, title });
      expect(data.provider).toEqual({ name: c.name, confidence: 1, detectionMethod: "url-parser" });
      expect(data.playback).toMatchObject({ strategy: "iframe", component: "iframe", embedUrl: c.embedUrl(id), streamable: false, downloadable: false });
      expect(data.preview).toEqual({ thumbnail: { url: c.thumbnail(id) } });
      // Provider pages have no file: no filename, size or category sub-object.
      expect(data.metadata).toBeUndefined();
    }
    for (const profile of ["standard", "full"] as const) {
      const { data, projection } = bodies[profile];
      expect(projection).toEqual({ profile, hiddenFields: [] });
      expect(data.providerData).toMatchObject({
        id: c.name === "vimeo" ? id : expect.stringContaining(id),
        canonicalUrl: c.canonicalUrl(id),
        embedUrl: c.embedUrl(id),
        embeddable: true,
        oembed: { title, provider_name: expect.any(String) },
      });
      expectIframeHtml(data.playback.html, c.embedUrl(id), title, c.iframeAllow);
    }
    expect(bodies.full.data.diagnostics.timings).toMatchObject({ oembed: expect.any(Number) });
    expect(bodies.standard.data.diagnostics).toBeUndefined();

    // expand=embedHtml brings the heavy field back into fast, nothing else.
    const fastHtml = await inspect(url, "profile=fast&expand=embedHtml");
    expect(fastHtml.body.data.playback.html).toBe(bodies.standard.data.playback.html);
    expect(fastHtml.body.data.providerData).toBeUndefined();

    const embed = await inspect(url, "profile=embed");
    expect(embed.status).toBe(200);
    expect(Object.keys(embed.body).sort()).toEqual(["data", "profile", "success"]);
    expect(embed.body.data).toMatchObject({
      embedType: c.semanticType,
      mime: "text/html",
      provider: c.name,
      renderability: { native: false, iframe: { supported: "verified", confidence: 1 }, embeddable: { status: "verified" } },
      verification: { providerVerified: true, registryVerified: true, networkVerified: true, method: "registry" },
      render: {
        strategy: "iframe", safeEmbed: true, renderConfidence: { level: "verified", score: 1 }, tag: "iframe",
        attributes: { src: c.embedUrl(id), allowfullscreen: true, title },
      },
      providerCapabilities: { timestamps: expect.any(Boolean), fullscreen: expect.any(Boolean) },
    });
    expect(embed.body.data.html).toBeUndefined();
    // SPEC 4.3 rule 4: no standard metadata, semantics or previews.
    for (const k of ["identity", "semantic", "metadata", "preview", "playback"]) expect(embed.body.data[k]).toBeUndefined();

    const embedHtml = await inspect(url, "profile=embed&expand=html");
    expect(embedHtml.status).toBe(200);
    expectIframeHtml(embedHtml.body.data.html, c.embedUrl(id), title, c.iframeAllow);

    // Seven inspections, one resource, one oEmbed request (with the timestamp-free URL, format=json).
    const calls = await oembedRequestsFor(id);
    expect(calls.map((u) => u.pathname)).toEqual([c.oembedPath]);
    expect(calls[0]!.searchParams.get("format")).toBe("json");
    expect(calls[0]!.searchParams.get("url")).not.toMatch(/[#&?]t=|start=|si=/);
  });
});

describe.each(cases.filter((c) => c.otherEmbedUrl))("$name timestamps", (c) => {
  it("another timestamp for the same media shares the resource but gets its own embed URL", async () => {
    const { id, url, sameMediaOtherTime } = c.make();
    const first = await inspect(url, "profile=standard");
    expect(first.status).toBe(200);
    const second = await inspect(sameMediaOtherTime!, "profile=standard");
    expect(second.status).toBe(200);
    expect(second.body.responseSource).toBe("cache");
    expect(second.body.data.identity).toMatchObject({ url: sameMediaOtherTime, canonicalUrl: c.canonicalUrl(id) });
    expect(second.body.data.playback.embedUrl).toBe(c.otherEmbedUrl!(id));
    expect(second.body.data.providerData.embedUrl).toBe(c.otherEmbedUrl!(id));
    expectIframeHtml(second.body.data.playback.html, c.otherEmbedUrl!(id), first.body.data.semantic.title, c.iframeAllow);
    const embed = await inspect(sameMediaOtherTime!, "profile=embed");
    expect(embed.body.data.render.attributes.src).toBe(c.otherEmbedUrl!(id));
    // The first caller's answer did not change.
    const again = await inspect(url, "profile=fast");
    expect(again.body.data.playback.embedUrl).toBe(c.embedUrl(id));
    expect(await oembedRequestsFor(id)).toHaveLength(1);
  });
});

describe("concurrent first inspections", () => {
  it("five simultaneous callers with different timestamps: one resource, one oEmbed request, five embed URLs", async () => {
    const id = youtubeId();
    const starts = [10, 20, 30, 40, 50];
    const results = await Promise.all(starts.map((t) => inspect(`https://www.youtube.com/watch?v=${id}&t=${t}`, "profile=fast")));
    results.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.body.data.playback.embedUrl).toBe(`https://www.youtube-nocookie.com/embed/${id}?start=${starts[i]}`);
      expect(r.body.data.semantic.title).toMatch(/^YouTube title for /);
    });
    expect(results.map((r) => r.body.responseSource).filter((s) => s === "fresh")).toHaveLength(1);
    expect(await oembedRequestsFor(id)).toHaveLength(1);
  });
});

/** The iframe is well-formed, escaped, points at the embed URL and carries the provider's allow/sandbox policy. */
function expectIframeHtml(html: string, embedUrl: string, title: string, allowFeature: string) {
  const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  expect(html).toMatch(/^<iframe [^<>]*><\/iframe>$/);
  expect(html).toContain(` src="${escape(embedUrl)}"`);
  expect(html).toContain(` title="${escape(title)}"`);
  expect(html).toMatch(new RegExp(` allow="[^"]*\\b${allowFeature}\\b[^"]*"`));
  // Cross-origin player: scripts and its own origin, never top navigation.
  const sandbox = html.match(/ sandbox="([^"]*)"/)?.[1]?.split(" ") ?? [];
  expect(sandbox).toEqual(expect.arrayContaining(["allow-scripts", "allow-same-origin"]));
  expect(sandbox).not.toContain("allow-top-navigation");
  expect(html).toContain(' referrerpolicy="strict-origin-when-cross-origin"');
  expect(html).toMatch(/ allowfullscreen>/);
}

describe("escaping", () => {
  it("an oEmbed title full of HTML metacharacters and an embed URL with & stay inside their attributes", async () => {
    const id = youtubeId("Quot");
    const list = `PL${randomChars(16)}`;
    const url = `https://www.youtube.com/watch?v=${id}&list=${list}&t=90`;
    const standard = await inspect(url, "profile=standard");
    expect(standard.status).toBe(200);
    const title = standard.body.data.semantic.title;
    expect(title).toBe(`Say "hi" <b>&</b> 'now' ${id}`);
    const embedUrl = `https://www.youtube-nocookie.com/embed/${id}?start=90&list=${list}`;
    expect(standard.body.data.playback.embedUrl).toBe(embedUrl);
    for (const html of [standard.body.data.playback.html, (await inspect(url, "profile=embed&expand=html")).body.data.html]) {
      expectIframeHtml(html, embedUrl, title, "encrypted-media");
      expect(html).toContain(`title="Say &quot;hi&quot; &lt;b&gt;&amp;&lt;/b&gt; &#39;now&#39; ${id}"`);
      expect(html).toContain(`?start=90&amp;list=${list}"`);
      expect(html).not.toContain("<b>");
      // One element, and every quote in it delimits an attribute.
      expect(html.match(/</g)).toHaveLength(2);
    }
  });
});

describe("oEmbed outcomes", () => {
  it("401 (embedding disabled): 200 in every profile, embed says not-embeddable with a reason, URL-parsed fields kept", async () => {
    const id = youtubeId("private");
    const url = `https://www.youtube.com/watch?v=${id}`;
    for (const profile of ["fast", "standard", "full"]) {
      const r = await inspect(url, `profile=${profile}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.processing).toMatchObject({ status: "complete", pendingStages: [], completedStages: ["semantic", "mediaFormat", "oembed"] });
      // A documented result, not a failed stage.
      expect(r.body.processing.failedStages).toBeUndefined();
      expect(r.body.data.provider).toEqual({ name: "youtube", confidence: 1, detectionMethod: "url-parser" });
      expect(r.body.data.playback.embedUrl).toBe(`https://www.youtube-nocookie.com/embed/${id}`);
      expect(r.body.data.preview.thumbnail.url).toBe(`https://i.ytimg.com/vi/${id}/hqdefault.jpg`);
      expect(r.body.data.semantic.title).toBeUndefined();
      if (profile !== "fast") expect(r.body.data.providerData).toMatchObject({ embeddable: false });
    }
    const embed = await inspect(url, "profile=embed&expand=html");
    expect(embed.status).toBe(200);
    expect(embed.body.data.renderability.embeddable).toEqual({ status: "not-embeddable", reason: expect.stringMatching(/embed/i) });
    expect(embed.body.data.renderability.iframe.supported).toBe("blocked");
    expect(embed.body.data.render.safeEmbed).toBe(false);
    expect(embed.body.data.render.renderConfidence.level).toBe("low");
    expect(await oembedRequestsFor(id)).toHaveLength(1);
  });

  it("a provider outage is not remembered for the record's lifetime: after ERROR_TTL_SECONDS (0 here) oEmbed is retried", async () => {
    const id = youtubeId("Flaky");
    const url = `https://www.youtube.com/watch?v=${id}`;
    const first = await inspect(url, "profile=standard");
    expect(first.status).toBe(200);
    expect(first.body.processing.failedStages).toEqual(["oembed"]);
    expect(first.body.data.semantic.title).toBeUndefined();
    const second = await inspect(url, "profile=standard");
    expect(second.status).toBe(200);
    expect(second.body.processing.failedStages).toBeUndefined();
    expect(second.body.data.semantic.title).toMatch(/^YouTube title for /);
    expect(await oembedRequestsFor(id)).toHaveLength(2);
    const third = await inspect(url, "profile=fast");
    expect(third.body.data.semantic.title).toBe(second.body.data.semantic.title);
    expect(await oembedRequestsFor(id)).toHaveLength(2);
  });

  it("404: RESOURCE_NOT_FOUND in every profile", async () => {
    const id = youtubeId("gone");
    for (const profile of profiles) {
      const r = await inspect(`https://www.youtube.com/watch?v=${id}`, `profile=${profile}`);
      expect({ status: r.status, code: r.body?.error?.code }, JSON.stringify(r.body)).toEqual({ status: 404, code: "RESOURCE_NOT_FOUND" });
      expect(r.body.status).toBe("error");
    }
  });

  it.each([
    ["youtube", () => youtubeId("down"), (id: string) => `https://www.youtube.com/watch?v=${id}&t=90`],
    ["spotify", () => `down${randomChars(18)}`, (id: string) => `https://open.spotify.com/episode/${id}`],
  ])("%s provider down (503): 200 with the URL-parsed fields, oembed failed, never pending", async (name, makeId, makeUrl) => {
    const id = makeId();
    const url = makeUrl(id);
    const started = Date.now();
    for (const profile of ["fast", "standard", "full"]) {
      const r = await inspect(url, `profile=${profile}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.processing).toEqual({
        status: "complete", completion: 1, enrichmentsPending: false,
        completedStages: ["semantic", "mediaFormat", "oembed"], pendingStages: [], failedStages: ["oembed"],
      });
      expect(r.body.job).toBeUndefined();
      expect(r.body.data.provider).toMatchObject({ name, detectionMethod: "url-parser" });
      expect(r.body.data.identity.canonicalUrl).toContain(id);
      expect(r.body.data.playback).toMatchObject({ strategy: "iframe", embedUrl: expect.stringContaining(id) });
      expect(r.body.data.semantic.title).toBeUndefined();
      if (name === "youtube") expect(r.body.data.preview.thumbnail.url).toBe(`https://i.ytimg.com/vi/${id}/hqdefault.jpg`);
      else expect(r.body.data.preview).toBeUndefined();
      if (profile !== "fast") {
        expect(r.body.data.providerData.oembed).toBeUndefined();
        expect(r.body.data.playback.html).toMatch(/^<iframe /);
      }
    }
    // `full` did not wait for a stage that can never finish.
    expect(Date.now() - started).toBeLessThan(5000);
    const embed = await inspect(url, "profile=embed");
    expect(embed.status).toBe(200);
    expect(embed.body.data).toMatchObject({
      provider: name,
      renderability: { iframe: { supported: "likely" }, embeddable: { status: "likely" } },
      verification: { registryVerified: true, networkVerified: false, providerVerified: false },
      render: { strategy: "iframe", safeEmbed: true, renderConfidence: { level: "likely" } },
    });
  });
});

describe("the provider page itself is never fetched", () => {
  it("a non-provider URL on the same host fails (no DNS for it here), so the 200s above came without touching it", async () => {
    // Control: www.youtube.com is not in the fake DoH zone and there is no outside network, so any fetch of a
    // youtube.com page ends in an error. The provider answers above are 200 with finalUrl == url and no size.
    const control = await inspect(`https://www.youtube.com/about?n=${randomChars(6)}`, "profile=fast");
    expect(control.status).toBeGreaterThanOrEqual(400);
    const id = youtubeId();
    const r = await inspect(`https://www.youtube.com/watch?v=${id}`, "profile=full");
    expect(r.status).toBe(200);
    expect(r.body.data.identity.finalUrl).toBe(`https://www.youtube.com/watch?v=${id}`);
    expect(r.body.data.metadata).toBeUndefined();
    expect(r.body.data.diagnostics.timings).toMatchObject({ mediaFormat: 0, semantic: 0 });
  });
});
