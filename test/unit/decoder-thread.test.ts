// The decoder threads (media-runner/src/media/decoder-thread.ts) on their own: a picture past its time limit and an
// aborted job end their thread with the right error while this event loop keeps running, and the next picture gets a
// fresh thread. The hostile file is testkit/hostile-tiff.ts's clear-code TIFF (minutes of LZW work from 1 MB).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bptcDdsToPng, decodeInThread } from "../../media-runner/src/media/decoder-thread.ts";
import { clearCodeTiff } from "../../testkit/hostile-tiff.ts";
import { bc7SolidBlock, dx10Dds, dxgi, textureBlocks } from "../../testkit/texture-fixtures.ts";

let dir: string;
let hostile: string;
let texture: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "decoder-thread-"));
  hostile = join(dir, "clear-codes.tif");
  writeFileSync(hostile, clearCodeTiff(1000, 50_000, 1024 * 1024));
  texture = join(dir, "red.dds");
  writeFileSync(texture, dx10Dds(64, 32, dxgi.bc7, textureBlocks(64, 32, () => bc7SolidBlock([200, 40, 40, 255]))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts this thread's timer ticks while `work` runs: a blocked event loop would count none. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ ticks: number; outcome: PromiseSettledResult<T> }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  const [outcome] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { ticks, outcome: outcome! };
}

describe("decoder threads", () => {
  it("a picture past its time limit fails with PROCESSING_TIMEOUT while the event loop runs", async () => {
    const { ticks, outcome } = await ticksDuring(decodeInThread("tiff-legacy", hostile, 50_000_000, { timeoutMs: 1500 }));
    expect(outcome.status).toBe("rejected");
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: "PROCESSING_TIMEOUT", message: "the image took too long to decode" });
    expect(ticks).toBeGreaterThan(5);
  }, 60_000);

  it("an aborted job ends its thread; the next picture decodes in a fresh one", async () => {
    const controller = new AbortController();
    const work = decodeInThread("tiff-legacy", hostile, 50_000_000, { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 1000);
    await expect(work).rejects.toMatchObject({ code: "PROCESSING_TIMEOUT", message: "the job was stopped" });
    const { png, declared } = await bptcDdsToPng(texture, 50_000_000, { timeoutMs: 30_000 });
    expect(declared).toBeUndefined();
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  }, 60_000);

  it("a decoder's own refusal keeps its code across the thread (the pixel wall)", async () => {
    await expect(decodeInThread("dds-bptc", texture, 100, { timeoutMs: 30_000 })).rejects.toMatchObject({ code: "IMAGE_TOO_LARGE" });
    await expect(decodeInThread("tiff-legacy", texture, 50_000_000, { timeoutMs: 30_000 })).rejects.toMatchObject({ code: "CORRUPT_MEDIA" });
  }, 60_000);
});
