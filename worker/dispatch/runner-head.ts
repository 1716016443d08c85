/**
 * The bytes the edge already read, handed to the runner with a direct call (RunnerRequest.head), so the
 * runner's cache starts with them and the origin is not asked for them again. The runner uses them only when
 * the origin's first answer shows the same file; the validators sent here are what the edge saw.
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { RunnerHead, runnerHeadMaxBytes, runnerTailMaxBytes } from "../../shared/shapes/runner.ts";
import { bytesToBase64 } from "../encoding/base64.ts";

/** The hand-over for this record's probe bytes, or undefined when the runner could not use them. */
export function runnerHeadOf(record: ResourceRecord, head: Uint8Array | undefined, tail?: { offset: number; bytes: Uint8Array }): RunnerHead | undefined {
  const { probe } = record;
  const size = probe.sizeBytes;
  // The runner confirms the bytes with a Range request; decoded (compressed) bytes are not file offsets.
  if (!head || head.byteLength === 0 || size === undefined || !probe.streamable || probe.headers["content-encoding"]) return undefined;
  const bytes = head.byteLength > runnerHeadMaxBytes ? head.subarray(0, runnerHeadMaxBytes) : head;
  const etag = probe.headers.etag;
  const lastModified = probe.headers["last-modified"];
  const parsed = RunnerHead.safeParse({
    base64: bytesToBase64(bytes),
    size,
    ...(etag !== undefined ? { etag } : {}),
    ...(lastModified !== undefined ? { lastModified } : {}),
    ...(tailOf(bytes, size, tail) ?? {}),
  });
  // A validator the runner would refuse (odd characters, over-long): no hand-over rather than a refused call.
  return parsed.success ? parsed.data : undefined;
}

/**
 * The file's last bytes to hand over with the head: at most runnerTailMaxBytes of them (the end is what a
 * moov-last file's engines read first), none when the head already reaches them.
 */
function tailOf(head: Uint8Array, size: number, tail: { offset: number; bytes: Uint8Array } | undefined): { tail: { offset: number; base64: string } } | undefined {
  if (!tail || tail.offset + tail.bytes.byteLength !== size) return undefined;
  const bytes = tail.bytes.byteLength > runnerTailMaxBytes ? tail.bytes.subarray(tail.bytes.byteLength - runnerTailMaxBytes) : tail.bytes;
  const offset = size - bytes.byteLength;
  if (offset <= head.byteLength) return undefined;
  return { tail: { offset, base64: bytesToBase64(bytes) } };
}
