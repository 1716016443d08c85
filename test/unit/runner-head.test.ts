// What the edge hands the runner with a direct call (issue 22 item 4): the head it read, and the file's end it
// read (the suffix read, a moov-last file's moov), each within its cap and in a shape the runner accepts.
import { describe, expect, it } from "vitest";
import { RunnerHead, runnerTailMaxBytes } from "../../shared/shapes/runner.ts";
import { runnerHeadOf } from "../../worker/dispatch/runner-head.ts";
import { createRecord } from "../../worker/record/create-record.ts";

const size = 1_000_000;
const record = createRecord({
  key: "k", url: "https://example.test/v.mp4", normalizedUrl: "https://example.test/v.mp4", category: "video",
  probe: { finalUrl: "https://example.test/v.mp4", status: 206, mime: "video/mp4", streamable: true, bytesFetched: 0, redirects: 0, sizeBytes: size, headers: { etag: '"e1"' } },
  ttlSeconds: 60, now: 0,
});
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe("runnerHeadOf", () => {
  it("hands over the head and the file's end, each as base64 the runner's schema accepts", () => {
    const head = runnerHeadOf(record, bytes(16_384, 1), { offset: size - 40_000, bytes: bytes(40_000, 2) })!;
    expect(RunnerHead.safeParse(head).success).toBe(true);
    expect(head.etag).toBe('"e1"');
    expect(head.tail?.offset).toBe(size - 40_000);
    expect(Buffer.from(head.tail!.base64, "base64").every((b) => b === 2)).toBe(true);
  });

  it("keeps only the last runnerTailMaxBytes of a longer end", () => {
    const head = runnerHeadOf(record, bytes(16_384, 1), { offset: size - 300_000, bytes: bytes(300_000, 2) })!;
    expect(head.tail?.offset).toBe(size - runnerTailMaxBytes);
    expect(Buffer.from(head.tail!.base64, "base64").length).toBe(runnerTailMaxBytes);
  });

  it("sends no tail that does not reach the file's end, or that the head already covers", () => {
    expect(runnerHeadOf(record, bytes(16_384, 1), { offset: 500_000, bytes: bytes(1_000, 2) })?.tail).toBeUndefined();
    const small = { ...record, probe: { ...record.probe, sizeBytes: 20_000 } };
    expect(runnerHeadOf(small, bytes(16_384, 1), { offset: 12_000, bytes: bytes(8_000, 2) })?.tail).toBeUndefined();
    expect(runnerHeadOf(record, bytes(16_384, 1))?.tail).toBeUndefined();
  });
});
