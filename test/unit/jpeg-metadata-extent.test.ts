import { describe, expect, it } from "vitest";
import { jpegMetadataEnd } from "../../worker/probe/jpeg-metadata-extent.ts";

function segment(marker: number, body: number): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body + 2, 2);
  return Buffer.concat([head, Buffer.alloc(body)]);
}
const reader = (file: Buffer) => {
  const reads: number[] = [];
  return { reads, read: async (offset: number, length: number) => (reads.push(offset), new Uint8Array(file.subarray(offset, offset + length))) };
};

describe("jpegMetadataEnd", () => {
  it("ends after the last APPn before the frame header, reading only marker headers", async () => {
    const file = Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xe0, 14), segment(0xe1, 40_000), segment(0xed, 9_000), segment(0xdb, 65), segment(0xc0, 15), segment(0xda, 10), Buffer.alloc(100)]);
    const { read, reads } = reader(file);
    expect(await jpegMetadataEnd(read, file.length)).toBe(2 + 18 + 40_004 + 9_004);
    expect(reads.length).toBe(6);
  });
  it("is 0 without metadata, and stops at the limit and on garbage", async () => {
    const plain = Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xdb, 65), segment(0xda, 10)]);
    expect(await jpegMetadataEnd(reader(plain).read, plain.length)).toBe(0);
    const big = Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xe1, 60_000), segment(0xe1, 60_000)]);
    // Capped: never past the limit, however long the segments say they are.
    expect(await jpegMetadataEnd(reader(big).read, 70_000)).toBe(70_000);
    expect(await jpegMetadataEnd(reader(Buffer.alloc(64, 0x41)).read, 64)).toBe(0);
  });
});
