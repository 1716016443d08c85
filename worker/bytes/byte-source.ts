import { errors } from "../errors/api-error.ts";
import { readHead, safeFetch, type FetchPolicy } from "../fetch/index.ts";
import { maxProbeExtraRequests } from "../config/limits.ts";

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
  /** Range requests made after the head (the head's own request is the probe's). */
  extraRequests = 0;
  /** A suffix read sent together with the head, until it has landed (or failed). */
  private pendingSuffix: Promise<void> | undefined;

  constructor(
    readonly url: string,
    readonly size: number | undefined,
    private readonly streamable: boolean,
    private readonly policy: FetchPolicy,
    /** Hard limit on extra bytes this source may pull beyond the head. */
    private readonly maxExtraBytes: number,
    /** Smallest follow-up read: a parser's next few header reads usually land in it, so they cost no request. */
    private readonly minChunkBytes = 4 * 1024,
    /** Hard limit on the Range requests this source may make beyond the head. */
    private readonly maxExtraRequests = maxProbeExtraRequests,
  ) {}

  /**
   * A suffix read that went out together with the head (it does not depend on it): it counts as one of this
   * source's requests and its bytes against the extra-bytes budget; reads that miss what is held wait for it
   * before fetching, so the tail a reader wants is not asked for twice. A failed suffix read is only a miss.
   */
  expectSuffix(read: Promise<{ offset: number; bytes: Uint8Array } | undefined>): void {
    this.extraRequests += 1;
    this.pendingSuffix = read
      .then((got) => {
        if (got && got.bytes.byteLength > 0 && this.bytesFetched + got.bytes.byteLength <= this.maxExtraBytes + this.headBytes()) {
          this.addSegment(got.offset, got.bytes);
        }
      }, () => {})
      .finally(() => {
        this.pendingSuffix = undefined;
      });
  }

  /** Resolves once the suffix read sent with the head (if any) has landed or failed. */
  async settled(): Promise<void> {
    await this.pendingSuffix;
  }

  addSegment(offset: number, bytes: Uint8Array, counted = true): void {
    // The first segment is the probe's head: the extra-bytes budget is counted beyond it.
    this.headSize ??= offset === 0 ? bytes.byteLength : 0;
    if (counted) this.bytesFetched += bytes.byteLength;
    // Segments that touch or overlap are joined, so a read across them (head, then the rest) is served from memory.
    const all = [...this.segments, { offset, bytes }].sort((x, y) => x.offset - y.offset);
    const merged: typeof all = [];
    for (const s of all) {
      const last = merged.at(-1);
      const lastEnd = last ? last.offset + last.bytes.byteLength : -1;
      if (!last || s.offset > lastEnd) {
        merged.push({ ...s });
        continue;
      }
      const end = s.offset + s.bytes.byteLength;
      if (end <= lastEnd) continue;
      const joined = new Uint8Array(end - last.offset);
      joined.set(last.bytes, 0);
      joined.set(s.bytes.subarray(lastEnd - s.offset), lastEnd - last.offset);
      last.bytes = joined;
    }
    this.segments.splice(0, this.segments.length, ...merged);
  }

  /**
   * Reads up to `length` bytes at `offset`; fewer only at end of file. A fetch pulls at least `minChunk` bytes
   * (the source's default unless a reader that knows its next reads are close by asks for a smaller window).
   */
  async read(offset: number, length: number, minChunk = this.minChunkBytes): Promise<Uint8Array> {
    const end = this.size === undefined ? offset + length : Math.min(offset + length, this.size);
    if (end <= offset) return new Uint8Array(0);
    // Each pass fetches the first gap in the range; bytes already held (the head, earlier reads) are not
    // asked for again. Segments are merged, so a range has few gaps: usually one pass, at most one per gap.
    for (;;) {
      const cached = this.fromCache(offset, end);
      if (cached) return cached;
      // The suffix read sent with the head may hold these bytes: wait for it rather than ask again.
      if (this.pendingSuffix) {
        await this.pendingSuffix;
        continue;
      }
      if (!this.streamable) throw errors.badGateway("The origin does not support Range requests.");
      const from = this.cachedEnd(offset) ?? offset;
      // At least minChunk (a parser's next small reads land in it), never into bytes already held.
      const limit = Math.min(this.nextHeldAfter(from), this.size ?? Infinity);
      const fetchEnd = Math.min(Math.max(end, from + minChunk), limit);
      const got = await this.fetchRange(from, fetchEnd);
      // A short answer (the file ended early) leaves what there is.
      if (got < fetchEnd - from) return this.fromCache(offset, from + got) ?? new Uint8Array(0);
    }
  }

  private async fetchRange(from: number, to: number): Promise<number> {
    if (this.bytesFetched + (to - from) > this.maxExtraBytes + this.headBytes()) {
      throw errors.badGateway("Reading this file's metadata would need too many bytes.");
    }
    if (this.extraRequests >= this.maxExtraRequests) {
      throw errors.badGateway("Reading this file's metadata would need too many requests.");
    }
    this.extraRequests += 1;
    const { response } = await safeFetch(this.url, { headers: { range: `bytes=${from}-${to - 1}` } }, this.policy);
    if (response.status !== 206) {
      await response.body?.cancel();
      throw errors.badGateway(`The origin answered ${response.status} to a Range request.`);
    }
    const bytes = await readHead(response, to - from, this.policy.deadline);
    this.addSegment(from, bytes);
    return bytes.byteLength;
  }

  /** Start of the first held segment after `from` (a fetch stops there), or Infinity. */
  private nextHeldAfter(from: number): number {
    let next = Infinity;
    for (const s of this.segments) if (s.offset > from && s.offset < next) next = s.offset;
    return next;
  }

  /** Whether `length` bytes at `offset` are already held (reading them costs no request). */
  holds(offset: number, length: number): boolean {
    const end = this.size === undefined ? offset + length : Math.min(offset + length, this.size);
    return this.fromCache(offset, end) !== undefined;
  }

  /** How many of the `length` bytes at `offset` are not held yet (what reading them would fetch, at least). */
  missingBytes(offset: number, length: number): number {
    const end = this.size === undefined ? offset + length : Math.min(offset + length, this.size);
    let held = 0;
    for (const s of this.segments) held += Math.max(0, Math.min(end, s.offset + s.bytes.byteLength) - Math.max(offset, s.offset));
    return Math.max(0, end - offset - held);
  }

  /** The bytes held contiguously from offset 0 (the head and any reads joined to it). */
  prefix(): Uint8Array {
    return this.segments.find((s) => s.offset === 0)?.bytes ?? new Uint8Array(0);
  }

  /** The bytes held contiguously up to the file's end (a suffix read and reads joined to it), if any. */
  suffix(): { offset: number; bytes: Uint8Array } | undefined {
    if (this.size === undefined) return undefined;
    const last = this.segments.find((s) => s.offset > 0 && s.offset + s.bytes.byteLength === this.size);
    return last ? { offset: last.offset, bytes: last.bytes } : undefined;
  }

  /** End of the held segment that contains `offset`, if any (segments are merged, so at most one). */
  private cachedEnd(offset: number): number | undefined {
    let best: number | undefined;
    for (const s of this.segments) {
      const end = s.offset + s.bytes.byteLength;
      if (s.offset <= offset && end > offset && (best === undefined || end > best)) best = end;
    }
    return best;
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
