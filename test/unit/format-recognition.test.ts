// Issue 23, the edge's decision on real generated files (the same functions the probe and the category step
// call in every profile): sniffed MIME type, then the stream list of MPEG-TS/PS deciding audio or video.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { svgRootOffset } from "../../shared/media/svg-sniff.ts";
import { decideCategory } from "../../worker/probe/evidence.ts";
import { readMpegPsStreams } from "../../worker/probe/mpegps-streams.ts";
import { readMpegTsStreams } from "../../worker/probe/mpegts-streams.ts";
import { sniffMime } from "../../worker/probe/sniff-mime.ts";
import { readEdgeMediaFacts } from "../../worker/probe/edge-media-facts.ts";
import type { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import { ensureFormatFixtures, formatFixtures } from "../../testkit/image-format-fixtures.ts";

let dir: string;
beforeAll(() => {
  dir = ensureFormatFixtures(join(import.meta.dirname, "..", ".fixtures", "formats"));
}, 120_000);

/** The probe's head: the first 16 KiB. */
const headOf = (file: string) => new Uint8Array(readFileSync(join(dir, file)).subarray(0, 16 * 1024));

describe("edge recognition of each class from the head bytes", () => {
  it.each(formatFixtures)("$file: $mime, category $category", async (fx) => {
    const head = headOf(fx.file);
    // Declared as octet-stream: the bytes alone decide.
    const sniffed = await sniffMime(head, "application/octet-stream");
    const facts = await readEdgeMediaFacts({ size: undefined } as unknown as RangeByteSource, sniffed, head);
    const decision = decideCategory(sniffed, facts?.tracks);
    expect([decision.mime, decision.category]).toEqual([fx.mime, fx.category]);
  });
});

describe("bounded readers", () => {
  it("MPEG-TS: stream types of the PMT; a file that is not TS gives nothing", () => {
    expect(readMpegTsStreams(headOf("fmt-audio-only.ts"))).toMatchObject({ video: 0, audio: 1 });
    expect(readMpegTsStreams(headOf("fmt-video.ts"))).toMatchObject({ video: 1, audio: 1 });
    expect(readMpegTsStreams(headOf("fmt-audio-only.mpg"))).toBeUndefined();
    // Shorter than three packets: no sync to confirm, undefined (the magic number's category stands).
    expect(readMpegTsStreams(headOf("fmt-audio-only.ts").subarray(0, 188 * 2))).toBeUndefined();
  });

  it("MPEG-PS: the packs' stream ids", () => {
    expect(readMpegPsStreams(headOf("fmt-audio-only.mpg"))).toEqual({ video: 0, audio: 1 });
    expect(readMpegPsStreams(headOf("fmt-video.mpg"))).toEqual({ video: 1, audio: 1 });
  });

  it("SVG: the root element after prolog, comments and a DOCTYPE with an internal subset; not SVG otherwise", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const prolog = '<?xml version="1.0"?><!DOCTYPE svg [ <!ENTITY a "b"> ]><!-- x --> <svg/>';
    expect(svgRootOffset(enc(prolog))).toBe(prolog.indexOf("<svg"));
    expect(svgRootOffset(enc("\ufeff<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBe(3);
    expect(svgRootOffset(enc('<?xml version="1.0"?><html/>'))).toBeUndefined();
    expect(svgRootOffset(enc('<?xml version="1.0"?><!-- never closed <svg>'))).toBeUndefined();
    // Linear: a megabyte of unterminated comment openers is rejected quickly.
    const started = performance.now();
    expect(svgRootOffset(enc("<!--".repeat(4096)))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(200);
  });
});
