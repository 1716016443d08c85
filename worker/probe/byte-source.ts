import { errors } from "../errors/api-error.ts";
import { readHead, safeFetch, type FetchPolicy } from "../fetch/index.ts";

/**
 * Random access to a remote file through the safe fetcher: bytes already read (the probe's head) are served
 * from memory, anything else costs one Range request, never a full download. Parsers (music-metadata via the
 * tokenizer below) read through this one interface and never care where the bytes come from.
 */
export class RangeByteSource {
  private readonly segments: { offset: number; bytes: Uint8Array }[] = [];
  private headSize: number | undefined;
  /** Bytes pulled from the origin through this source (the probe's head included). */
  bytesFetched = 0;

  constructor(
    readonly url: string,
    readonly size: number | undefined,
    private readonly streamable: boolean,
    private readonly policy: FetchPolicy,
    /** Hard limit on extra bytes this source may pull beyond the head. */
    private readonly maxExtraBytes: number,
    private readonly minChunkBytes = 64 * 1024,
  ) {}

  addSegment(offset: number, bytes: Uint8Array, counted = true): void {
    // The first segment is the probe's head: the extra-bytes budget is counted beyond it.
    this.headSize ??= offset === 0 ? bytes.byteLength : 0;
    if (counted) this.bytesFetched += bytes.byteLength;
    // Joined to a segment it touches, so a read across the two (head, then the rest) is served from memory.
    const before = this.segments.find((s) => s.offset + s.bytes.byteLength === offset);
    if (before) {
      const joined = new Uint8Array(before.bytes.byteLength + bytes.byteLength);
      joined.set(before.bytes, 0);
      joined.set(bytes, before.bytes.byteLength);
      before.bytes = joined;
      return;
    }
    this.segments.push({ offset, bytes });
  }

  /** Reads up to `length` bytes at `offset`; fewer only at end of file. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const end = this.size === undefined ? offset + length : Math.min(offset + length, this.size);
    if (end <= offset) return new Uint8Array(0);
    const cached = this.fromCache(offset, end);
    if (cached) return cached;
    if (!this.streamable) throw errors.badGateway("The origin does not support Range requests.");
    const want = Math.max(end - offset, this.minChunkBytes);
    const fetchEnd = this.size === undefined ? offset + want : Math.min(offset + want, this.size);
    if (this.bytesFetched + (fetchEnd - offset) > this.maxExtraBytes + this.headBytes()) {
      throw errors.badGateway("Reading this file's metadata would need too many bytes.");
    }
    const { response } = await safeFetch(this.url, { headers: { range: `bytes=${offset}-${fetchEnd - 1}` } }, this.policy);
    if (response.status !== 206) {
      await response.body?.cancel();
      throw errors.badGateway(`The origin answered ${response.status} to a Range request.`);
    }
    const bytes = await readHead(response, fetchEnd - offset, this.policy.deadline);
    this.addSegment(offset, bytes);
    return bytes.subarray(0, end - offset);
  }

  private headBytes(): number {
    return this.headSize ?? 0;
  }

  private fromCache(start: number, end: number): Uint8Array | undefined {
    for (const s of this.segments) {
      if (s.offset <= start && s.offset + s.bytes.byteLength >= end) {
        return s.bytes.subarray(start - s.offset, end - s.offset);
      }
    }
    return undefined;
  }
}
