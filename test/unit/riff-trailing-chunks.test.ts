import { describe, expect, it } from "vitest";
import { waveHasChunksAfterData } from "../../worker/probe/riff-trailing-chunks.ts";

function chunk(id: string, body: number): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, "latin1");
  head.writeUInt32LE(body, 4);
  return Buffer.concat([head, Buffer.alloc(body + (body & 1))]);
}
function wave(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from("WAVE"), ...chunks]);
  const head = Buffer.alloc(8);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

describe("waveHasChunksAfterData", () => {
  it("sees a chunk after the samples, from the head alone", () => {
    const file = wave(chunk("fmt ", 16), chunk("data", 1001), chunk("C2PA", 40));
    expect(waveHasChunksAfterData(file.subarray(0, 60), file.length)).toBe(true);
  });
  it("is false when the samples end the file, for other RIFF forms, and for garbage", () => {
    const file = wave(chunk("fmt ", 16), chunk("data", 1000));
    expect(waveHasChunksAfterData(file, file.length)).toBe(false);
    const webp = Buffer.from(file);
    webp.write("WEBP", 8, "latin1");
    expect(waveHasChunksAfterData(webp, webp.length + 100)).toBe(false);
    expect(waveHasChunksAfterData(Buffer.alloc(4), 100)).toBe(false);
    // A chunk claiming 4 GiB before any data chunk: the walk leaves the head and stops.
    const huge = wave(chunk("fmt ", 16));
    huge.writeUInt32LE(0xffffffff, 16);
    expect(waveHasChunksAfterData(huge, 1 << 20)).toBe(false);
  });
});
