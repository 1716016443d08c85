/**
 * The decoder's reads answered from the job's RemoteSource (its block cache, caps and origin checks), paced like
 * the Range proxy answers ffmpeg (proxy/range-proxy.ts): a read after a seek pulls one small span, reads that go
 * on sequentially pull spans that double up to a megabyte, so a decoder reading through a file costs a few origin
 * requests, not one per 64 KB read.
 */
import type { RemoteSource } from "../../fetch/remote-source.ts";
import type { ByteReader } from "./decoder-process.ts";

/** The first span after a seek, and the most a sequential span grows to (the proxy's paced answers use the same). */
const pacedFirstBytes = 64 * 1024;
const pacedMaxBytes = 1024 * 1024;

export function sourceReader(source: RemoteSource): ByteReader {
  let ahead: { start: number; bytes: Buffer } | undefined;
  let lastEnd = -1;
  let span = pacedFirstBytes;
  return async (offset, length) => {
    const size = source.size ?? 0;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0) throw new Error("a read outside the file");
    if (offset >= size || length <= 0) return Buffer.alloc(0);
    // A short read is a valid answer: whatever the decoder asks, one answer holds at most pacedMaxBytes.
    const want = Math.min(length, size - offset, pacedMaxBytes);
    if (ahead && offset >= ahead.start && offset + want <= ahead.start + ahead.bytes.length) {
      lastEnd = offset + want;
      return ahead.bytes.subarray(offset - ahead.start, offset - ahead.start + want);
    }
    span = offset === lastEnd ? Math.min(span * 2, pacedMaxBytes) : pacedFirstBytes;
    const end = Math.min(offset + Math.max(want, span), size) - 1;
    const parts: Buffer[] = [];
    for await (const part of source.read(offset, end)) parts.push(part);
    const bytes = Buffer.concat(parts);
    ahead = { start: offset, bytes };
    const served = bytes.subarray(0, want);
    lastEnd = offset + served.length;
    return served;
  };
}
