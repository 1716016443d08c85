// Issue 13: web pages through the Worker: data.page from OpenGraph, Twitter cards, JSON-LD and plain HTML, and
// the media a page names inspected as its own resource (pages from testkit/stream-fixtures.ts).
import { describe, expect, it } from "vitest";
import { inspect, media, origin } from "../../../testkit/worker/helpers.ts";

describe("page facts", () => {
  it("OpenGraph first, absolute URLs, lang, canonical; fields=page selects the namespace", async () => {
    const { status, body } = await inspect(media("pages/og-video.html"), "profile=fast&fields=page");
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(["page"]);
    expect(body.data.page).toMatchObject({
      title: "The clip & its story",
      description: "OpenGraph description",
      siteName: "Example Site",
      image: `${origin}/media/png-opaque.png`,
      favicon: `${origin}/favicon.ico`,
      author: "@clipmaker",
      publishedAt: "2026-01-02T03:04:05Z",
      canonicalUrl: "https://example.test/clip",
      lang: "en-GB",
    });
  });

  it("og:image gets its dimensions from the image itself", async () => {
    const { body } = await inspect(media("pages/og-video.html"), "profile=fast&fields=page");
    expect([body.data.page.imageWidth, body.data.page.imageHeight]).toEqual([96, 64]);
  });

  it("plain HTML facts when nothing else is there; no media, nothing pending", async () => {
    const { body } = await inspect(media("pages/plain.html"), "profile=standard");
    expect(body.data.semantic.kind).toBe("webpage");
    expect(body.data.page).toEqual({ title: "Only a title", description: "and a description" });
    expect(body.processing).toMatchObject({ status: "complete", completedStages: ["semantic", "mediaFormat", "page", "page:media"] });
  });
});

describe("the media behind the page", () => {
  it("og:video naming a local MP4: inspected as its own resource, with its facts", async () => {
    const { body } = await inspect(media("pages/og-video.html"), "profile=fast");
    expect(body.data.page.media).toMatchObject({
      url: `${origin}/media/video.mp4`, mime: "video/mp4", semanticType: "video", width: 640, height: 360,
    });
    expect(body.data.page.media.duration.seconds).toBeGreaterThan(0);
    // The same resource, from the same cache, as inspecting the MP4 directly.
    const direct = await inspect(`${origin}/media/video.mp4`, "profile=fast");
    expect(direct.body.responseSource).toBe("cache");
  });

  it("full: the named media's thumbnail comes with it", async () => {
    const { body } = await inspect(media("pages/og-video.html"), "profile=full");
    expect(body.processing.status).toBe("complete");
    expect(body.data.page.media.thumbnail.url).toMatch(/^\/api\/v1\/thumbnails\//);
  }, 20_000);

  it("JSON-LD VideoObject naming an HLS playlist: reported as a stream with its duration", async () => {
    const { body } = await inspect(media("pages/jsonld-hls.html"), "profile=fast");
    expect(body.data.page).toMatchObject({ title: "Stream on Twitter", description: "A stream described by JSON-LD", author: "Ada", siteName: "Streams Inc", publishedAt: "2025-12-24" });
    expect(body.data.page.media).toMatchObject({
      url: `${origin}/media/hls/master.m3u8`, mime: "application/vnd.apple.mpegurl", semanticType: "video", width: 480, height: 270,
      duration: { seconds: 6, formatted: "0:06" },
    });
  });

  it("a YouTube URL in og:video is that provider's embed", async () => {
    const { body } = await inspect(media("pages/youtube.html"), "profile=fast");
    expect(body.data.page.embed).toMatchObject({ provider: "youtube", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", embedUrl: expect.stringContaining("dQw4w9WgXcQ") });
    expect(body.data.page.media).toBeUndefined();
  });

  it("a page naming another page: page:media fails with the reason, the page facts stay", async () => {
    const { body } = await inspect(media("pages/names-a-page.html"), "profile=fast&debug=true");
    expect(body.data.page.title).toBe("Loop");
    expect(body.processing.failedStages).toEqual(["page:media"]);
    expect(body.debug.stageErrors[0].reason).toMatch(/not a media file \(text\/html\)/);
  });

  it("a page naming media at a private address: refused by the same SSRF checks, within the deadline", async () => {
    const started = Date.now();
    const { status, body } = await inspect(media("pages/private-media.html"), "profile=fast&debug=true");
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(body.debug.stageErrors).toEqual([{ stage: "page:media", reason: expect.stringMatching(/^SSRF_BLOCKED/) }]);
  });
});
