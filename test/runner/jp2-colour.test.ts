// A JPEG 2000 whose colour box carries a Display P3 ICC profile (testkit/longtail-image-fixtures.ts: the scene's
// numbers, #d03030 and #2050c0, meant as P3): the runner's thumbnail shows them converted to sRGB. The reference
// is ImageMagick's (LittleCMS) conversion of the same numbers from the P3 profile libvips ships to its sRGB profile.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { ensureLongtailFixtures } from "../../testkit/longtail-image-fixtures.ts";
import { scene } from "../../testkit/image-format-fixtures.ts";
import { processRequest, runnerOverFolder } from "../../testkit/runner/harness.ts";

const runner = runnerOverFolder(() => ensureLongtailFixtures(join(import.meta.dirname, "..", ".fixtures", "longtail")), 120_000);
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "jp2-colour-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A profile libvips ships ("p3", "srgb"), written out by ImageMagick from a PNG sharp tagged with it. */
async function shippedProfile(name: "p3" | "srgb"): Promise<string> {
  const png = join(work, `${name}.png`);
  await sharp({ create: { width: 2, height: 2, channels: 3, background: "#808080" } }).withIccProfile(name).png().toFile(png);
  execFileSync("convert", [png, `icc:${join(work, `${name}.icc`)}`]);
  return join(work, `${name}.icc`);
}

/** ImageMagick's sRGB for a colour whose numbers are meant in Display P3. */
async function referenceSrgb(hex: string): Promise<number[]> {
  const [p3, srgb] = [await shippedProfile("p3"), await shippedProfile("srgb")];
  // The first -profile assigns (the picture has none), the second converts through LittleCMS.
  const text = execFileSync("convert", ["-size", "1x1", `xc:${hex}`, "-profile", p3, "-profile", srgb, "-depth", "8", "txt:-"]).toString();
  return /\((\d+),(\d+),(\d+)/.exec(text)!.slice(1, 4).map(Number);
}

describe("JPEG 2000 with a Display P3 profile", () => {
  it("the thumbnail's colours are the P3 numbers converted to sRGB, as ImageMagick converts them", async () => {
    const res = await processRequest(runner.app(), { url: runner.fileUrl("lt-icc-p3.jp2"), category: "image", stages: ["thumbnail"] as never });
    expect(res.statusCode, res.body).toBe(200);
    const result = RunnerResponse.parse(res.json());
    const { data, info } = await sharp(Buffer.from(result.thumbnail!.base64, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    const y = Math.floor(info.height / 2);
    const left = pixel(Math.floor((scene.split / scene.width) * info.width * 0.5), y);
    const right = pixel(Math.floor(info.width - (1 - scene.split / scene.width) * info.width * 0.5), y);
    const [red, blue] = [await referenceSrgb("#d03030"), await referenceSrgb("#2050c0")];
    // P3's red is beyond sRGB's: converted, it is clearly redder than the numbers read as sRGB.
    expect(red[0]).toBeGreaterThan(0xd0 + 10);
    // WebP's lossy coding moves flat colours by a few levels.
    for (const [ours, reference] of [[left, red], [right, blue]] as const) {
      ours.forEach((v, c) => expect(Math.abs(v - reference[c]!), `${ours} vs ${reference}`).toBeLessThanOrEqual(6));
    }
  }, 60_000);
});
