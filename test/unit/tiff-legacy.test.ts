// The runner's 12-bit TIFF reader against libtiff (Debian's libtiff-tools): ImageMagick writes a 12-bit RGB
// picture LZW-, Deflate- and PackBits-compressed, libtiff's tiffcp rewrites each uncompressed, and the samples
// read from both must be the same; a picture over twice the largest preview is read every step-th row and
// column, with its own size declared.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readFirstIfd, unpack12BitTiff } from "../../media-runner/src/media/tiff-legacy.ts";
import { legacyTiffToImage } from "../../media-runner/src/media/decoder-thread.ts";

const dir = mkdtempSync(join(tmpdir(), "tiff12-"));
const quiet = { stdio: ["ignore", "ignore", "pipe"] as ["ignore", "ignore", "pipe"] };
const read = (file: string) => new Uint8Array(readFileSync(join(dir, file)));

beforeAll(() => {
  for (const compression of ["lzw", "zip", "rle"]) {
    execFileSync("convert", ["-size", "640x480", "-seed", "7", "plasma:fractal", "-type", "TrueColor", "-depth", "12", "-compress",
      compression === "rle" ? "RLE" : compression, `tiff:${join(dir, `${compression}.tif`)}`], quiet);
    execFileSync("tiffcp", ["-c", "none", join(dir, `${compression}.tif`), join(dir, `${compression}-none.tif`)], quiet);
  }
  execFileSync("convert", ["-size", "3000x200", "gradient:red-blue", "-type", "TrueColor", "-depth", "12", "-compress", "lzw", `tiff:${join(dir, "wide.tif")}`], quiet);
}, 60_000);

describe("12-bit TIFF samples as libtiff reads them", () => {
  it.each(["lzw", "zip", "rle"])("%s: the same samples as libtiff's uncompressed copy", (compression) => {
    const packed = read(`${compression}.tif`);
    const plain = read(`${compression}-none.tif`);
    expect(readFirstIfd(packed)?.get(259)?.[0]).not.toBe(1);
    const a = unpack12BitTiff(packed, readFirstIfd(packed)!, 50_000_000);
    const b = unpack12BitTiff(plain, readFirstIfd(plain)!, 50_000_000);
    expect(a).toMatchObject({ width: 640, height: 480, channels: 3 });
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    // Not a flat picture: the comparison means something.
    expect(new Set(a.data.subarray(0, 3000)).size).toBeGreaterThan(20);
  });

  it("a picture over twice the largest preview is sampled, its own size declared; the wall refuses a lying size", async () => {
    const wide = read("wide.tif");
    const full = unpack12BitTiff(wide, readFirstIfd(wide)!, 50_000_000);
    const sampled = unpack12BitTiff(wide, readFirstIfd(wide)!, 50_000_000, 1280);
    expect(sampled).toMatchObject({ width: 1500, height: 100 });
    for (const [x, y] of [[0, 0], [700, 50], [1499, 99]] as const) {
      expect(Array.from(sampled.data.subarray((y * 1500 + x) * 3, (y * 1500 + x) * 3 + 3)))
        .toEqual(Array.from(full.data.subarray((y * 2 * 3000 + x * 2) * 3, (y * 2 * 3000 + x * 2) * 3 + 3)));
    }
    expect((await legacyTiffToImage(join(dir, "wide.tif"), 50_000_000)).declared).toEqual({ width: 3000, height: 200 });
    expect((await legacyTiffToImage(join(dir, "lzw.tif"), 50_000_000)).declared).toBeUndefined();
    await expect(legacyTiffToImage(join(dir, "wide.tif"), 100_000)).rejects.toThrow(/over the limit/);
  });
});
