/** Page facts from collected head elements: order of trust, absolute URLs, JSON-LD bounds and the media named. */
import { describe, expect, it } from "vitest";
import { Page } from "../../shared/shapes/streaming-page.ts";
import { HeadCollector, pageFacts, type HeadElements } from "../../worker/page/index.ts";
import { maxHeadMetas, maxJsonLdBytes } from "../../worker/page/head-elements.ts";
import { maxJsonLdNodes, readJsonLd } from "../../worker/page/json-ld.ts";

const pageUrl = "https://news.example/section/story.html";

interface Spec {
  title?: string;
  lang?: string;
  metas?: [kind: "property" | "name" | "itemprop", key: string, content: string][];
  links?: [rel: string, href: string][];
  jsonLd?: unknown[];
}

function head(spec: Spec): HeadElements {
  const c = new HeadCollector();
  if (spec.title !== undefined) c.title(spec.title);
  if (spec.lang !== undefined) c.lang(spec.lang);
  for (const [kind, key, content] of spec.metas ?? []) c.meta({ [kind]: key, content });
  for (const [rel, href] of spec.links ?? []) c.link({ rel, href });
  for (const block of spec.jsonLd ?? []) c.jsonLd(typeof block === "string" ? block : JSON.stringify(block));
  return c.result();
}

const og = (key: string, content: string): [ "property", string, string ] => ["property", key, content];
const named = (key: string, content: string): [ "name", string, string ] => ["name", key, content];

const everyLayer: Spec = {
  title: "  Story  |  News Site ",
  lang: "fr",
  metas: [
    named("description", "html description"), named("author", "HTML Author"), named("twitter:title", "Twitter title"),
    named("twitter:description", "Twitter description"), named("twitter:image", "/img/twitter.jpg"), named("twitter:creator", "@writer"),
    og("og:title", "OG title"), og("og:description", "OG description"), og("og:site_name", "News Site"), og("og:image", "/img/og.jpg"),
    og("og:image:width", "1200"), og("og:image:height", "630"), og("og:url", "https://news.example/story"), og("og:locale", "en_GB"),
    og("article:published_time", "2026-03-01T10:00:00Z"), og("article:author", "https://news.example/people/writer"),
  ],
  links: [["icon", "/favicon.png"], ["canonical", "https://news.example/canonical"]],
  jsonLd: [{ "@context": "https://schema.org", "@type": "NewsArticle", headline: "LD headline", author: { "@type": "Person", name: "LD Author" } }],
};

describe("order of trust", () => {
  it("OpenGraph first, with relative URLs made absolute", () => {
    const { page } = pageFacts(head(everyLayer), pageUrl);
    expect(Page.parse(page)).toEqual(page);
    expect(page).toEqual({
      title: "OG title",
      description: "OG description",
      siteName: "News Site",
      image: "https://news.example/img/og.jpg",
      imageWidth: 1200,
      imageHeight: 630,
      favicon: "https://news.example/favicon.png",
      // article:author is a profile URL, not a name: the next layer names the author.
      author: "@writer",
      publishedAt: "2026-03-01T10:00:00Z",
      canonicalUrl: "https://news.example/story",
      lang: "en-GB",
    });
  });

  it("then Twitter cards, then JSON-LD, then plain HTML", () => {
    const noOg = { ...everyLayer, metas: everyLayer.metas!.filter(([kind]) => kind !== "property") };
    expect(pageFacts(head(noOg), pageUrl).page).toMatchObject({ title: "Twitter title", description: "Twitter description", image: "https://news.example/img/twitter.jpg" });
    const ldOnly = { ...noOg, metas: noOg.metas!.filter(([, key]) => !key.startsWith("twitter:")) };
    expect(pageFacts(head(ldOnly), pageUrl).page).toMatchObject({ title: "LD headline", author: "LD Author", description: "html description", lang: "fr" });
    const htmlOnly = { ...ldOnly, jsonLd: [] };
    expect(pageFacts(head(htmlOnly), pageUrl).page).toEqual({
      title: "Story | News Site", description: "html description", author: "HTML Author", favicon: "https://news.example/favicon.png",
      canonicalUrl: "https://news.example/canonical", lang: "fr",
    });
  });

  it("drops URLs that are not http(s) and values that are only whitespace", () => {
    const { page } = pageFacts(head({ metas: [og("og:image", "javascript:alert(1)"), og("og:title", "   "), named("twitter:image", "data:image/png;base64,AAAA")], links: [["icon", "file:///etc/passwd"]] }), pageUrl);
    expect(page).toEqual({});
  });
});

describe("JSON-LD", () => {
  it("reads the article inside an @graph next to the site, and skips a broken block", () => {
    const facts = readJsonLd([
      "{ not json",
      JSON.stringify({ "@graph": [
        { "@type": "WebSite", name: "The Site" },
        { "@type": "BreadcrumbList", name: "crumbs" },
        { "@type": ["Article"], headline: "Graph headline", datePublished: "2025-01-02", image: [{ "@type": "ImageObject", url: "https://cdn.example/a.jpg" }], inLanguage: "de" },
      ] }),
    ]);
    expect(facts).toMatchObject({ title: "Graph headline", siteName: "The Site", publishedAt: "2025-01-02", image: "https://cdn.example/a.jpg", lang: "de" });
  });

  it("bounds the walk over huge and deeply nested documents", () => {
    const wide = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ "@type": "Thing", name: `n${i}` })));
    const inner = JSON.stringify({ "@type": "VideoObject", contentUrl: "https://x.example/deep.mp4" });
    const deep = '{"@type":"Thing","child":'.repeat(5_000) + inner + "}".repeat(5_000);
    const started = performance.now();
    const facts = readJsonLd([wide, deep]);
    expect(facts.title).toBe("n0");
    expect(facts.media).toEqual([]); // beyond maxJsonLdNodes / maxJsonLdDepth: never reached
    expect(maxJsonLdNodes).toBeLessThan(20_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("the collector keeps a bounded number of elements and drops oversized JSON-LD blocks whole", () => {
    const c = new HeadCollector();
    for (let i = 0; i < maxHeadMetas + 50; i++) c.meta({ name: `m${i}`, content: "x" });
    c.jsonLd(`{"@type":"Article","headline":"${"h".repeat(maxJsonLdBytes)}"}`);
    expect(c.result().metas).toHaveLength(maxHeadMetas);
    expect(c.result().jsonLd).toEqual([]);
  });
});

describe("the media a page names", () => {
  it("og:video naming a local MP4 becomes an absolute candidate", () => {
    const { media, page } = pageFacts(head({ metas: [og("og:video", "/media/clip.mp4"), og("og:video:type", "video/mp4")] }), pageUrl);
    expect(media).toEqual([{ url: "https://news.example/media/clip.mp4", source: "og:video", kind: "video", declaredType: "video/mp4" }]);
    expect(page.embed).toBeUndefined();
  });

  it("a JSON-LD VideoObject naming an HLS playlist becomes a candidate; an embedUrl page does not", () => {
    const { media } = pageFacts(head({ jsonLd: [{ "@type": "VideoObject", name: "V", contentUrl: "streams/master.m3u8", embedUrl: "https://player.example/embed/1", encodingFormat: "application/x-mpegURL" }] }), pageUrl);
    expect(media).toEqual([{ url: "https://news.example/section/streams/master.m3u8", source: "json-ld", kind: "video", declaredType: "application/x-mpegurl" }]);
  });

  it("og:audio and twitter:player:stream are candidates in that order; player pages and non-http URLs are not", () => {
    const { media } = pageFacts(head({ metas: [
      og("og:video", "https://player.example/watch/1"), og("og:video:type", "text/html"),
      og("og:audio", "https://cdn.example/a.mp3"), named("twitter:player:stream", "https://cdn.example/v.mp4"),
      named("twitter:player:stream:content_type", "video/mp4"),
    ], jsonLd: [{ "@type": "AudioObject", contentUrl: "file:///etc/passwd" }] }), pageUrl);
    expect(media.map((m) => [m.source, m.url])).toEqual([["og:audio", "https://cdn.example/a.mp3"], ["twitter:player:stream", "https://cdn.example/v.mp4"]]);
  });

  it("a YouTube URL in og:video is reported as the provider's embed, not fetched as media", () => {
    const { media, page } = pageFacts(head({ metas: [og("og:video", "https://www.youtube.com/watch?v=dQw4w9WgXcQ")] }), pageUrl);
    expect(media).toEqual([]);
    expect(page.embed).toMatchObject({ provider: "youtube", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", embedUrl: expect.stringContaining("dQw4w9WgXcQ") });
  });
});
