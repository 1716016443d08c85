/** The head reader feeds page facts: elements collected in one linear pass, hostile heads included. */
import { describe, expect, it } from "vitest";
import { maxHtmlHeadBytes, readHtmlHead } from "../../worker/probe/html-head.ts";
import { pageFacts } from "../../worker/page/index.ts";

const base = "https://site.example/a/page.html";

describe("head elements for page facts", () => {
  it("reads html lang, meta, link, title and JSON-LD, entities decoded except in scripts", () => {
    const html = `<!doctype html><html lang="de"><head><title>T &amp; T</title>
      <meta property="og:title" content="OG &quot;title&quot;"><META NAME=description CONTENT='d'>
      <link rel="icon" href="/i.png"><script type="application/ld+json">{"@type":"Article","headline":"a &amp; b"}</script>
      </head><body><meta property="og:image" content="/late.png"></body></html>`;
    const facts = readHtmlHead(html, base);
    expect(facts.elements).toEqual({
      title: "T & T", lang: "de",
      metas: [{ property: "og:title", content: 'OG "title"' }, { name: "description", content: "d" }],
      links: [{ rel: "icon", href: "/i.png" }],
      jsonLd: ['{"@type":"Article","headline":"a &amp; b"}'],
    });
    expect(pageFacts(facts.elements!, base).page).toMatchObject({ title: 'OG "title"', favicon: "https://site.example/i.png", lang: "de" });
  });

  it("hostile heads (unclosed scripts, endless tags, attribute soup) are read in linear time", () => {
    const size = maxHtmlHeadBytes;
    const heads = [
      "<head>" + "<script>".repeat(size / 8),
      "<head>" + "<meta ".repeat(size / 6),
      `<head><meta ${"a".repeat(size)}>`,
      `<head><meta ${"a=".repeat(size / 2)}>`,
      "<head>" + '<meta content="x>'.repeat(size / 16),
    ];
    for (const head of heads) {
      const started = performance.now();
      readHtmlHead(head, base);
      // Linear work over 512 KiB; the quadratic regexes this replaces take tens of seconds here.
      expect(performance.now() - started).toBeLessThan(1_500);
    }
  });
});
