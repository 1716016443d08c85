// The runner's BC7 and BC6H block decoders against Pillow's (Debian's python3-pil, a C decoder nobody here wrote):
// textures of random blocks, so every mode, shape, rotation and index width is met, decoded by both and compared
// texel by texel. Random bytes are always a block of some mode; the seed makes the run repeatable.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bptcTextureOf, decodeBptcSurface } from "../../media-runner/src/media/dds-bptc.ts";
import { bptcDdsToPng } from "../../media-runner/src/media/decoder-thread.ts";
import { dx10Dds, dxgi } from "../../testkit/texture-fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "bptc-"));
const python = process.env.PILLOW_PYTHON ?? "/usr/bin/python3";
const dump = "import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1]); im.load()\nsys.stdout.buffer.write(im.mode.encode() + b'\\n' + im.tobytes())";

/** A deterministic byte stream (xorshift32). */
function randomBlocks(count: number, seed: number, fix?: (block: Uint8Array) => void): Uint8Array {
  const out = new Uint8Array(count * 16);
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    out[i] = x & 0xff;
  }
  if (fix) for (let b = 0; b < count; b++) fix(out.subarray(b * 16, b * 16 + 16));
  return out;
}

function pillow(file: Buffer): { mode: string; pixels: Buffer } {
  const path = join(dir, "t.dds");
  writeFileSync(path, file);
  const out = execFileSync(python, ["-c", dump, path]);
  const nl = out.indexOf(10);
  return { mode: out.subarray(0, nl).toString(), pixels: out.subarray(nl + 1) };
}

/** The largest difference of any sample between the two decodes. */
function compare(file: Buffer): { worst: number; channels: number } {
  const ours = decodeBptcSurface(file, bptcTextureOf(file)!, 1 << 20);
  const theirs = pillow(file);
  const theirChannels = theirs.mode === "RGBA" ? 4 : 3;
  let worst = 0;
  const texels = ours.data.length / ours.channels;
  for (let t = 0; t < texels; t++) {
    for (let c = 0; c < ours.channels; c++) worst = Math.max(worst, Math.abs(ours.data[t * ours.channels + c]! - theirs.pixels[t * theirChannels + c]!));
  }
  return { worst, channels: ours.channels };
}

describe("BPTC blocks decoded as Pillow decodes them", () => {
  it("BC7: 4096 random blocks of modes 0-7 match exactly", () => {
    // Mode 8 (a zero first byte) is reserved: the format gives transparent black, Pillow opaque black.
    const blocks = randomBlocks(4096, 0x9e3779b9, (b) => { if (b[0] === 0) b[0] = 0x40; });
    const { worst, channels } = compare(dx10Dds(256, 256, dxgi.bc7, blocks));
    expect(channels).toBe(4);
    expect(worst).toBe(0);
  });

  it("BC6H unsigned: 4096 random blocks of all 14 modes match within one level (float rounding)", () => {
    const { worst, channels } = compare(dx10Dds(256, 256, dxgi.bc6hUnsigned, randomBlocks(4096, 0x2545f491)));
    expect(channels).toBe(3);
    expect(worst).toBeLessThanOrEqual(1);
  });

  it("BC6H signed: the modes whose endpoints are stored whole match", () => {
    // In the delta-coded modes the format sign-extends each endpoint after adding its delta; Pillow 9.4 does not,
    // so only modes 10 and 11 (mode bits 11110 and 00011), whose endpoints are not deltas, are compared.
    const blocks = randomBlocks(4096, 0x68e31da4, (b) => { b[0] = (b[0]! & 0xe0) | (b[0]! & 1 ? 0x1e : 0x03); });
    expect(compare(dx10Dds(256, 256, dxgi.bc6hSigned, blocks)).worst).toBeLessThanOrEqual(1);
  });

  it("a texture whose size is not a multiple of 4 crops its edge blocks; a cut file decodes the blocks it holds", () => {
    const blocks = randomBlocks(6 * 5, 7, (b) => { if (b[0] === 0) b[0] = 0x40; });
    expect(compare(dx10Dds(22, 18, dxgi.bc7, blocks)).worst).toBe(0);
    const whole = dx10Dds(24, 20, dxgi.bc7, blocks);
    const cut = decodeBptcSurface(whole.subarray(0, 148 + 16 * 7 + 3), bptcTextureOf(whole)!, 1 << 20);
    const full = decodeBptcSurface(whole, bptcTextureOf(whole)!, 1 << 20);
    // Block row 0 (6 blocks) and the first block of row 1 are held; the rest stays zero.
    expect(Buffer.from(cut.data.subarray(0, 24 * 4 * 4))).toEqual(Buffer.from(full.data.subarray(0, 24 * 4 * 4)));
    expect(cut.data.subarray(24 * 4 * 8).every((v) => v === 0)).toBe(true);
  });

  it("a texture over twice the largest preview is sampled a block at a time, and keeps its own size as declared", async () => {
    const blocks = randomBlocks(1500 * 25, 11, (b) => { if (b[0] === 0) b[0] = 0x40; });
    const file = dx10Dds(6000, 100, dxgi.bc7, blocks);
    const full = decodeBptcSurface(file, bptcTextureOf(file)!, 1 << 20);
    const sampled = decodeBptcSurface(file, bptcTextureOf(file)!, 1 << 20, 1280);
    // Step 4 (6000 / 1280): blocks 0, 4, 8, ... of rows 0, 4, 8, ...
    expect(sampled).toMatchObject({ width: 1500, height: 28, channels: 4 });
    const texel = (img: { data: Uint8Array; width: number }, x: number, y: number) => Array.from(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4));
    for (const [bx, by] of [[0, 0], [10, 3], [374, 6]] as const) {
      for (const [tx, ty] of [[0, 0], [3, 2]] as const) expect(texel(sampled, bx * 4 + tx, by * 4 + ty)).toEqual(texel(full, bx * 16 + tx, by * 16 + ty));
    }
    const path = join(dir, "wide.dds");
    writeFileSync(path, file);
    expect((await bptcDdsToPng(path, 50_000_000)).declared).toEqual({ width: 6000, height: 100 });
    const small = dx10Dds(96, 64, dxgi.bc7, randomBlocks(24 * 16, 3));
    writeFileSync(path, small);
    expect((await bptcDdsToPng(path, 50_000_000)).declared).toBeUndefined();
  });

  it("the pixel wall is checked on the header's size before anything is allocated", () => {
    const huge = dx10Dds(65536, 65536, dxgi.bc7, new Uint8Array(16));
    expect(() => decodeBptcSurface(huge, bptcTextureOf(huge)!, 50_000_000)).toThrow(/over the limit/);
  });
});
