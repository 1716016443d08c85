// The JP2 colour box's ICC profile (media-runner/src/media/jp2-icc.ts): found in a hand-built header, attached to
// a PNG that sharp then reads with it, and the box walk fed truncated and random bytes.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { jp2IccProfile, pngWithIccProfile } from "../../media-runner/src/media/jp2-icc.ts";

const box = (type: string, body: Uint8Array) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
};

async function p3Profile(): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: "#808080" } }).withIccProfile("p3").png().toBuffer();
  return (await sharp(png).metadata()).icc!;
}

function jp2With(icc: Uint8Array, method = 2): Buffer {
  const colr = box("colr", Buffer.concat([Buffer.from([method, 0, 0]), icc]));
  const header = box("jp2h", Buffer.concat([box("ihdr", Buffer.alloc(14)), colr]));
  return Buffer.concat([box("jP  ", Buffer.from([0x0d, 0x0a, 0x87, 0x0a])), box("ftyp", Buffer.from("jp2 \0\0\0\0jp2 ", "latin1")), header, box("jp2c", Buffer.alloc(64))]);
}

describe("a JPEG 2000's ICC profile", () => {
  it("is read from a method 2 or 3 colour box, not from an enumerated one, and travels into a PNG sharp reads", async () => {
    const icc = await p3Profile();
    expect(Buffer.from(jp2IccProfile(jp2With(icc))!)).toEqual(icc);
    expect(Buffer.from(jp2IccProfile(jp2With(icc, 3))!)).toEqual(icc);
    expect(jp2IccProfile(jp2With(icc, 1))).toBeUndefined();
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#d03030" } }).png().toBuffer();
    const tagged = pngWithIccProfile(png, icc);
    const meta = await sharp(tagged).metadata();
    expect(meta.icc?.equals(icc)).toBe(true);
    expect(meta.width).toBe(4);
  });

  it("truncated, corrupted and random headers give a profile or nothing, never a throw", async () => {
    const whole = jp2With(await p3Profile());
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (let n = 0; n <= whole.length; n += 3) expect(() => jp2IccProfile(whole.subarray(0, n))).not.toThrow();
    for (let i = 0; i < 3000; i++) {
      const copy = Buffer.from(whole);
      for (let f = 0; f < 4; f++) copy[next() % 64] = next() & 0xff;
      const found = jp2IccProfile(copy);
      if (found) expect(found.length).toBeLessThanOrEqual(copy.length);
      expect(() => jp2IccProfile(new Uint8Array(next() % 512).map(() => next() & 0xff))).not.toThrow();
    }
  });
});
