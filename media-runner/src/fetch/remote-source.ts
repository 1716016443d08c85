/**
 * A remote file read by byte ranges, with a per-job block cache. The loopback proxy serves ffprobe and
 * ffmpeg from it, so both share what was already pulled (the MP4 index is fetched once, not once per
 * engine), sequential reads grow into larger Range requests, and every byte counts against the job's cap.
 * Memory is bounded by the cache size, not by the file size.
 */
import type { Readable } from "node:stream";
import { RunnerError } from "../errors.ts";
import { parseContentLength, parseContentRange } from "./content-range.ts";
import { discard, openUpstream, upstreamError, type UpstreamContext } from "./upstream.ts";

export interface SourceLimits {
  /** Cap on bytes pulled from the origin for this job, and on the announced file size. */
  maxSourceBytes: number;
  /** Cache and request granularity. */
  blockBytes: number;
  /** Longest single Range request, in blocks, reached by doubling on sequential reads. */
  maxSpanBlocks: number;
  /** Cached bytes kept per job (least recently used dropped first). */
  maxCacheBytes: number;
}

export const defaultSourceLimits: Omit<SourceLimits, "maxSourceBytes"> = {
  blockBytes: 256 * 1024,
  maxSpanBlocks: 4,
  maxCacheBytes: 24 * 1024 * 1024,
};

type Block = [index: number, bytes: Buffer];

export class RemoteSource {
  /** File size; undefined when the origin neither supports ranges nor sends a length (until EOF). */
  size: number | undefined;
  rangeSupported = false;
  contentType: string | undefined;
  finalUrl: URL;
  bytesFetched = 0;
  /** Requests made to the origin, and redirect hops followed by the first (later ones go to its final URL). */
  requests = 0;
  redirects = 0;
  /** First fatal error met while serving the engines; the job reports it instead of "corrupt media". */
  failure: RunnerError | undefined;
  private readonly cache = new Map<number, Buffer>();
  private cachedBytes = 0;
  /**
   * Blocks being downloaded, so that a second reader waits for them instead of fetching them again
   * (ffprobe opens a new connection for its seek while the first is still pulling the same bytes).
   */
  private readonly inflight = new Map<number, Promise<void>>();

  constructor(
    readonly url: URL,
    private readonly ctx: UpstreamContext,
    private readonly limits: SourceLimits,
  ) {
    this.finalUrl = url;
  }

  /** First request: follows redirects, learns size and Range support, enforces the size cap. */
  async open(): Promise<void> {
    const B = this.limits.blockBytes;
    this.requests++;
    const first = await openUpstream(this.url, this.ctx, { start: 0, end: B - 1 });
    this.finalUrl = first.finalUrl;
    this.redirects = first.redirects;
    this.contentType = first.headers["content-type"];
    const range = first.status === 206 ? parseContentRange(first.headers["content-range"]) : undefined;
    if (range && range.start === 0 && range.size !== undefined) {
      this.rangeSupported = true;
      this.size = range.size;
    } else if (first.status === 200) {
      this.size = parseContentLength(first.headers["content-length"]);
    } else {
      discard(first.body);
      throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server sent an invalid partial response"));
    }
    if (this.size !== undefined && this.size > this.limits.maxSourceBytes) {
      discard(first.body);
      throw this.fail(new RunnerError("PAYLOAD_TOO_LARGE", `the remote file exceeds ${this.limits.maxSourceBytes} bytes`));
    }
    for await (const _ of this.blocksFrom(first.body, 0, 0, 1)) {
      // Cached by blocksFrom; nothing else to do with the first block here.
    }
  }

  /** Records the first failure and returns it, for `throw this.fail(...)`. */
  fail(error: RunnerError): RunnerError {
    this.failure ??= error;
    return error;
  }

  /** Bytes [start, end] (inclusive; end may be Infinity), in order, pulled on demand. */
  async *read(start: number, end: number): AsyncGenerator<Buffer> {
    const B = this.limits.blockBytes;
    let pos = start;
    let spanBlocks = 1;
    while (pos <= end && (this.size === undefined || pos < this.size)) {
      const index = Math.floor(pos / B);
      const pending = this.cache.has(index) ? undefined : this.inflight.get(index);
      if (pending) {
        await pending;
        if (this.cache.has(index)) continue;
      }
      const cached = this.cacheGet(index);
      if (cached) {
        if (pos - index * B >= cached.length) return;
        yield slice(index, cached, pos, end, B);
        pos = index * B + cached.length;
        if (cached.length < B) return;
        continue;
      }
      const lastIndex = end === Infinity ? Infinity : Math.floor(end / B);
      let count = 1;
      while (count < spanBlocks && index + count <= lastIndex && !this.cache.has(index + count) && !this.inflight.has(index + count)) count++;
      let last: Block | undefined;
      for await (const block of this.fetchBlocks(index, count)) {
        last = block;
        yield slice(block[0], block[1], pos, end, B);
        pos = block[0] * B + block[1].length;
        if (pos > end) return;
      }
      if (!last || last[1].length < B) return; // end of file
      spanBlocks = Math.min(spanBlocks * 2, this.limits.maxSpanBlocks);
    }
  }

  private async *fetchBlocks(index: number, count: number): AsyncGenerator<Block> {
    const mine: number[] = [];
    const last = Number.isFinite(count) ? index + count : index + 1;
    for (let i = index; i < last; i++) {
      if (this.inflight.has(i)) continue;
      mine.push(i);
      this.inflight.set(i, new Promise<void>((resolve) => this.settlers.set(i, resolve)));
    }
    try {
      yield* this.download(index, count);
    } finally {
      for (const i of mine) this.settle(i);
    }
  }

  /** Resolvers of blocks being downloaded, keyed by block index; called as each block lands. */
  private readonly settlers = new Map<number, () => void>();

  private settle(index: number): void {
    const resolve = this.settlers.get(index);
    this.settlers.delete(index);
    this.inflight.delete(index);
    resolve?.();
  }

  private async *download(index: number, count: number): AsyncGenerator<Block> {
    const B = this.limits.blockBytes;
    if (!this.rangeSupported) {
      // No Range support: one full GET, skipping (and caching) up to the wanted block, then streaming on.
      const whole = await this.request();
      yield* this.blocksFrom(whole.body, 0, index, Infinity);
      return;
    }
    const start = index * B;
    const end = Math.min((index + count) * B, this.size ?? Infinity) - 1;
    const part = await this.request({ start, end });
    const range = parseContentRange(part.headers["content-range"]);
    if (part.status !== 206 || range?.start !== start) {
      discard(part.body);
      throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server stopped honouring byte ranges"));
    }
    yield* this.blocksFrom(part.body, start, index, index + count);
  }

  private async request(range?: { start: number; end: number }) {
    this.requests++;
    try {
      return await openUpstream(this.finalUrl, this.ctx, range);
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    }
  }

  /**
   * Cuts a body (whose first byte is at file offset bodyOffset, a block boundary) into blocks, caches them,
   * yields blocks fromIndex..toIndex-1, and destroys the body when done or abandoned.
   */
  private async *blocksFrom(body: Readable, bodyOffset: number, fromIndex: number, toIndex: number): AsyncGenerator<Block> {
    const B = this.limits.blockBytes;
    let index = bodyOffset / B;
    let parts: Buffer[] = [];
    let partBytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        this.count(chunk.length);
        let offset = 0;
        while (offset < chunk.length) {
          const take = Math.min(B - partBytes, chunk.length - offset);
          parts.push(chunk.subarray(offset, offset + take));
          partBytes += take;
          offset += take;
          if (partBytes < B) continue;
          const block = Buffer.concat(parts, B);
          parts = [];
          partBytes = 0;
          this.cachePut(index, block);
          if (index >= fromIndex) yield [index, block];
          index++;
          if (index >= toIndex) return;
        }
      }
      // End of body: a short block is the file's last one when the size agrees (or is unknown).
      const block = Buffer.concat(parts, partBytes);
      const endOffset = index * B + partBytes;
      if (this.size === undefined) this.size = endOffset;
      if (endOffset === this.size) {
        this.cachePut(index, block);
        if (index >= fromIndex) yield [index, block];
      } else {
        throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server ended the body early"));
      }
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    } finally {
      discard(body);
    }
  }

  private count(bytes: number): void {
    this.bytesFetched += bytes;
    if (this.bytesFetched > this.limits.maxSourceBytes) {
      throw this.fail(new RunnerError("PAYLOAD_TOO_LARGE", `the remote file exceeds ${this.limits.maxSourceBytes} bytes`));
    }
  }

  private cacheGet(index: number): Buffer | undefined {
    const block = this.cache.get(index);
    if (block) {
      this.cache.delete(index);
      this.cache.set(index, block);
    }
    return block;
  }

  private cachePut(index: number, block: Buffer): void {
    if (this.cache.has(index)) return this.settle(index);
    this.cache.set(index, block);
    this.cachedBytes += block.length;
    this.settle(index);
    for (const [oldest, bytes] of this.cache) {
      if (this.cachedBytes <= this.limits.maxCacheBytes || oldest === index) break;
      this.cache.delete(oldest);
      this.cachedBytes -= bytes.length;
    }
  }
}

function slice(index: number, block: Buffer, pos: number, end: number, B: number): Buffer {
  const from = pos - index * B;
  const to = end === Infinity ? block.length : Math.min(block.length, end - index * B + 1);
  return block.subarray(Math.max(0, from), to);
}
