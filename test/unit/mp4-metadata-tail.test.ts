// Planning the one later read that completes a moov-last MP4's capture and rights: from held headers only, the
// bytes after the moov's tracks; what that read returns gives exiftool's reading of files ffmpeg and exiftool made
// (testkit/provenance-more-fixtures.ts). Over the cap the facts are left out with the reason; hostile box sizes
// end the walk.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RangeByteSource } from "../../worker/bytes/byte-source.ts";
import type { FetchPolicy } from "../../worker/fetch/index.ts";
import { moovBodyOf, planMetadataTail } from "../../worker/probe/mp4-metadata-tail.ts";
import { readMp4UserData } from "../../worker/probe/mp4-user-data.ts";
import { ensureMoreProvenanceFixtures, exiftoolReadingOf, moovLastFixtures } from "../../testkit/provenance-more-fixtures.ts";
import { maxMetadataTailBytes } from "../../worker/config/limits.ts";

const dir = join(tmpdir(), "media-inspect-provenance-more");
beforeAll(() => { ensureMoreProvenanceFixtures(dir); }, 120_000);

/** A byte source holding only `held` ranges of `bytes` (no request may be made: the URL leads nowhere). */
function holding(bytes: Uint8Array, ...held: [number, number][]): RangeByteSource {
  const source = new RangeByteSource("http://127.0.0.1:9/unused", bytes.length, true, {} as FetchPolicy, bytes.length, 1024, 0);
  for (const [from, to] of held) source.addSegment(from, bytes.subarray(from, to));
  return source;
}

/** Top-level and moov-level box offsets, walked here independently of the service's readers. */
function layout(b: Uint8Array): { moovAt: number; moovEnd: number; afterTracks: number } {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const type = (o: number) => String.fromCharCode(...b.subarray(o + 4, o + 8));
  let o = 0;
  while (type(o) !== "moov") o += view.getUint32(o);
  const moovEnd = o + view.getUint32(o);
  let c = o + 8;
  while (c < moovEnd && (type(c) === "mvhd" || type(c) === "trak")) c += view.getUint32(c);
  return { moovAt: o, moovEnd, afterTracks: c };
}

const box = (type: string, body: Uint8Array) => {
  const out = new Uint8Array(8 + body.length);
  new DataView(out.buffer).setUint32(0, out.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(body, 8);
  return out;
};
const join2 = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};

describe("the later read of a moov-last MP4's user data", () => {
  for (const { file } of moovLastFixtures) {
    it(`${file}: planned from held headers, a few KiB, and what it returns agrees with exiftool`, async () => {
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      const { moovEnd, afterTracks } = layout(bytes);
      expect(moovEnd).toBe(bytes.length);
      // What the first inspection holds: everything but the bytes after the tracks.
      const plan = await planMetadataTail(holding(bytes, [0, afterTracks]));
      expect(plan).toMatchObject({ offset: afterTracks, length: moovEnd - afterTracks });
      expect(plan!.length).toBeLessThan(4096);
      expect(plan!.refused).toBeUndefined();
      const declared = readMp4UserData(moovBodyOf(plan!, bytes.subarray(plan!.offset, plan!.offset + plan!.length)));
      const want = exiftoolReadingOf(dir, file);
      expect(declared.rights).toEqual({ creator: want.creator, copyright: want.copyright });
      expect(declared.capture?.device?.make).toBe(want.make);
      expect(Math.abs(declared.capture!.location!.latitude - want.latitude!)).toBeLessThanOrEqual(1.01e-5);
      expect(declared.capture!.takenAt!.replace(/[^0-9]/g, "").slice(0, 14)).toBe(want.takenAt!.replace(/[^0-9]/g, "").slice(0, 14));
    });
  }

  it("over the cap: refused with the reason, never read", async () => {
    const mvhd = box("mvhd", new Uint8Array(100));
    const udta = box("udta", new Uint8Array(maxMetadataTailBytes + 10));
    const moov = box("moov", join2(mvhd, udta));
    const file = join2(box("ftyp", new TextEncoder().encode("isom\0\0\0\0isom")), box("mdat", new Uint8Array(64)), moov);
    const moovAt = file.length - moov.length;
    const plan = await planMetadataTail(holding(file, [0, moovAt + 8 + mvhd.length + 8]));
    expect(plan?.refused).toMatch(/bytes after the tracks, over 1048576/);
  });

  it("hostile: zero and 1-byte box sizes, a moov header not held, garbage: no plan, no request, no hang", async () => {
    let x = 7;
    const junk = new Uint8Array(64 * 1024).map(() => { x = (x * 1103515245 + 12345) >>> 0; return x >>> 24; });
    expect(await planMetadataTail(holding(junk, [0, junk.length]))).toBeUndefined();
    const zero = join2(box("ftyp", new Uint8Array(8)), new Uint8Array(4096));
    expect(await planMetadataTail(holding(zero, [0, zero.length]))).toBeUndefined();
    const bytes = new Uint8Array(readFileSync(join(dir, moovLastFixtures[0]!.file)));
    // Only the head held: the moov's header is past it, so nothing can be planned without a request.
    expect(await planMetadataTail(holding(bytes, [0, 16 * 1024]))).toBeUndefined();
  });
});
