// The linear nesting check run on an MPD before the XML parser (worker/manifest/xml-nesting.ts).
import { describe, expect, it } from "vitest";
import { xmlNestingExceeds } from "../../worker/manifest/xml-nesting.ts";

describe("xmlNestingExceeds", () => {
  it("counts open elements only: self-closing tags, comments, CDATA, PIs and quoted > do not nest", () => {
    expect(xmlNestingExceeds(`<?xml version="1.0"?><MPD><a/><a/><b x="1>2" y='<'/></MPD>`, 1)).toBe(false);
    expect(xmlNestingExceeds(`<MPD><!-- <a><a><a> --><![CDATA[<a><a>]]><!DOCTYPE x></MPD>`, 1)).toBe(false);
    expect(xmlNestingExceeds(`<MPD><a><b></b></a></MPD>`, 2)).toBe(true);
    expect(xmlNestingExceeds(`<MPD><a></a><b></b></MPD>`, 2)).toBe(false);
  });

  it("start tags never closed nest too, and the check stops at the limit", () => {
    expect(xmlNestingExceeds(`<MPD>${"<a>".repeat(33)}`, 32)).toBe(true);
    expect(xmlNestingExceeds(`<MPD>${"<a>".repeat(31)}`, 32)).toBe(false);
  });

  it("512 KiB worst cases end in one pass", () => {
    for (const unit of ["<a>", "<a ", '<a x="', "<!--", "</", "<a/>", "<a></a>"]) {
      const text = unit.repeat(Math.ceil((512 * 1024) / unit.length));
      const started = performance.now();
      xmlNestingExceeds(text, 32);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
