/**
 * A remote file read by byte ranges, with a per-job block cache. The loopback proxy serves ffprobe and
 * ffmpeg from it, so both share what was already pulled (the MP4 index is fetched once, not once per
 * engine), sequential reads grow into larger Range requests, and every byte counts against the job's cap.
 * Memory is bounded by the cache size, not by the file size. The bytes the edge already read (the head, or
 * the whole of a small file) seed the cache when the origin confirms they are still the same file.
 */
import type { Readable } from "node:stream";
import { RunnerError } from "../errors.ts";
import { parseContentLength, parseContentRange } from "../../../shared/bytes/content-range.ts";
import { discard, openUpstream, upstreamError, type UpstreamContext } from "./upstream.ts";
import { BlockCache } from "./block-cache.ts";
import { ifRangeValidator, sameFile, type SourceLimits, type SourceSeed } from "./source-seed.ts";

export { defaultSourceLimits, type SourceLimits, type SourceSeed } from "./source-seed.ts";

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
  /** Whether the edge's bytes were confirmed and used (the origin was not asked for them again). */
  seeded = false;
  /** The edge's bytes at the file's end, once the origin confirmed the file: served before any block is fetched. */
  private tail: { offset: number; bytes: Buffer } | undefined;
  /** The blocks held, the head's last partial block, and the blocks being downloaded. */
  private readonly blocks: BlockCache;

  /** The first request's body, whose blocks past the first may still be arriving (stopped by close()). */
  private firstBody: Readable | undefined;
  /** Ends the prefetches still under way when the job is done (close()). */
  private readonly backgroundReads = new AbortController();
  private readonly backgroundCtx: UpstreamContext;

  constructor(
    readonly url: URL,
    private readonly ctx: UpstreamContext,
    private readonly limits: SourceLimits,
    private readonly seed?: SourceSeed,
  ) {
    this.finalUrl = url;
    this.blocks = new BlockCache(limits.maxCacheBytes);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, this.backgroundReads.signal]) : this.backgroundReads.signal;
    this.backgroundCtx = { ...ctx, signal };
  }

  /** The job is done: prefetches still pulling bytes nobody will read stop, and so does the first request's rest. */
  close(): void {
    this.backgroundReads.abort();
    if (this.firstBody) discard(this.firstBody);
  }

  /**
   * First request: follows redirects, learns size and Range support, enforces the size cap. `firstEnd`: with
   * the edge's bytes, the last byte the job is known to need from the start (a moov whose size the head shows,
   * all of an image whose header passed the pixel check): the first request reaches it instead of stopping at
   * the head's block, saving the round trips of the reads that would follow. Held to the cache's size.
   */
  async open(firstEnd?: number): Promise<void> {
    try {
      if (this.seed && (await this.openSeeded(this.seed, firstEnd))) return;
      await this.openPlain();
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    }
  }

  /**
   * With the edge's bytes: the first request asks only for what follows them (to the end of that block; one
   * byte when they are the whole file), with If-Range, and its answer must show the same file: 206 at that
   * offset, the same size, the same ETag and Last-Modified as the edge saw. Then the bytes seed the cache and
   * true is returned; otherwise the answer is dropped and the caller opens the source as if unseeded.
   */
  private async openSeeded(seed: SourceSeed, firstEnd = 0): Promise<boolean> {
    const B = this.limits.blockBytes;
    const held = seed.bytes.length;
    const whole = held >= seed.size;
    const start = whole ? 0 : held;
    // To the end of the head's block, or of the block holding firstEnd when that is further.
    const wanted = Math.min(firstEnd, this.limits.maxCacheBytes - 1);
    const blockEnd = Math.max(Math.floor(held / B) + 1, Math.ceil((wanted + 1) / B)) * B;
    const end = whole ? 0 : Math.min(blockEnd, seed.size) - 1;
    this.requests++;
    const first = await openUpstream(this.url, this.ctx, { start, end }, whole ? undefined : ifRangeValidator(seed));
    this.finalUrl = first.finalUrl;
    this.redirects = first.redirects;
    const range = first.status === 206 ? parseContentRange(first.headers["content-range"]) : undefined;
    if (range?.start !== start || range.size !== seed.size || !sameFile(seed, first.headers) || seed.size > this.limits.maxSourceBytes) {
      discard(first.body);
      return false;
    }
    this.contentType = first.headers["content-type"];
    this.rangeSupported = true;
    this.size = seed.size;
    this.seeded = true;
    this.blocks.seed(seed.bytes.subarray(0, seed.size), B, this.size);
    if (seed.tail && seed.tail.offset + seed.tail.bytes.length === seed.size) this.tail = seed.tail;
    if (whole) {
      for await (const chunk of first.body as AsyncIterable<Buffer>) this.count(chunk.length);
      return true;
    }
    const index = Math.floor(held / B);
    const last = Math.floor(end / B);
    // The blocks past the first arrive in the background: the job's engines start while they travel, and their
    // reads wait for them (in flight) instead of asking the origin again.
    for (let i = index + 1; i <= last; i++) this.blocks.claim(i);
    const settleRest = () => {
      for (let i = index + 1; i <= last; i++) this.blocks.settle(i);
    };
    const blocks = this.blocksFrom(first.body, index * B, index, last + 1, this.blocks.partialOf(index))[Symbol.asyncIterator]();
    try {
      await blocks.next();
    } catch (error) {
      settleRest();
      throw error;
    }
    this.firstBody = first.body;
    void (async () => {
      try {
        while (!(await blocks.next()).done) {
          // Cached (and settled) by blocksFrom.
        }
      } catch {
        // Recorded on the source by blocksFrom (source.failure): the engines meet it.
      } finally {
        settleRest();
      }
    })();
    return true;
  }

  private async openPlain(): Promise<void> {
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

  /**
   * Bytes [start, end] (inclusive; end may be Infinity), in order, pulled on demand. A bounded range is asked
   * for whole (up to maxSpanBlocks per request): its reader said what it needs, and each extra request is a
   * round trip. An open-ended read starts with one block and doubles, since an engine asking for "the rest"
   * usually reads a little and seeks; `wholeRest` reads all that is missing in one request instead (a reader
   * that needs every byte, like an image decode).
   */
  async *read(start: number, end: number, options: { wholeRest?: boolean; background?: boolean } = {}): AsyncGenerator<Buffer> {
    const B = this.limits.blockBytes;
    let pos = start;
    let spanBlocks = options.wholeRest ? Infinity : end === Infinity ? 1 : Math.min(this.limits.maxSpanBlocks, Math.floor(end / B) - Math.floor(start / B) + 1);
    while (pos <= end && (this.size === undefined || pos < this.size)) {
      if (this.tail && pos >= this.tail.offset) {
        // The rest of the read is in the edge's tail (it runs to the end of the file).
        const from = pos - this.tail.offset;
        yield this.tail.bytes.subarray(from, end === Infinity ? undefined : Math.min(this.tail.bytes.length, end - this.tail.offset + 1));
        return;
      }
      const index = Math.floor(pos / B);
      const partial = this.blocks.has(index) ? undefined : this.blocks.partialOf(index);
      if (partial && pos - index * B < partial.length) {
        yield slice(index, partial, pos, end, B);
        pos = index * B + partial.length;
        continue;
      }
      const pending = this.blocks.has(index) ? undefined : this.blocks.pending(index);
      if (pending) {
        await pending;
        if (this.blocks.has(index)) continue;
      }
      const cached = this.blocks.get(index);
      if (cached) {
        if (pos - index * B >= cached.length) return;
        yield slice(index, cached, pos, end, B);
        pos = index * B + cached.length;
        if (cached.length < B) return;
        continue;
      }
      const fileLast = this.size === undefined ? Infinity : Math.floor((this.size - 1) / B);
      // Blocks stop where the edge's tail begins (pos is before it here).
      const beforeTail = this.tail ? Math.floor((this.tail.offset - 1) / B) : Infinity;
      const lastIndex = Math.min(end === Infinity ? Infinity : Math.floor(end / B), fileLast, beforeTail);
      let count = 1;
      if (spanBlocks === Infinity && lastIndex === Infinity) count = Infinity; // size unknown: to the end of the body
      else while (count < spanBlocks && index + count <= lastIndex && !this.blocks.has(index + count) && !this.blocks.pending(index + count)) count++;
      let last: Block | undefined;
      for await (const block of this.fetchBlocks(index, count, options.background === true)) {
        last = block;
        yield slice(block[0], block[1], pos, end, B);
        pos = block[0] * B + block[1].length;
        if (pos > end) return;
      }
      if (!last || last[1].length < B) return; // end of file
      spanBlocks = options.wholeRest ? Infinity : Math.min(spanBlocks * 2, this.limits.maxSpanBlocks);
    }
  }

  /**
   * Pulls bytes [start, end] into the cache ahead of an engine that will ask for them (a frame's keyframe found
   * in the sample tables), in one request while the engine is still starting; its reads then wait for these
   * blocks instead of fetching them one span at a time.
   */
  async prefetch(start: number, end: number): Promise<void> {
    for await (const _ of this.read(start, end, { background: true })) {
      // Cached by read.
    }
  }

  /**
   * Bytes [start, end] (inclusive) in one exact Range request, for a reader that knows what it needs (the
   * storyboard's keyframes, found in the sample tables): not rounded out to blocks and not cached. Served from
   * the cache instead when every block of it is there. Only for a source with Range support.
   */
  async readExact(start: number, end: number): Promise<Buffer> {
    if (!this.rangeSupported || this.size === undefined || start < 0 || end < start || end >= this.size) {
      throw new RunnerError("INTERNAL_ERROR", "an exact read needs a Range-capable source and a range inside it");
    }
    const B = this.limits.blockBytes;
    const held: Buffer[] = [];
    for (let index = Math.floor(start / B); index <= Math.floor(end / B); index++) {
      const block = this.blocks.peek(index);
      if (!block) break;
      held.push(slice(index, block, Math.max(start, index * B), end, B));
    }
    if (held.length === Math.floor(end / B) - Math.floor(start / B) + 1) return Buffer.concat(held);
    const part = await this.request({ start, end });
    const range = parseContentRange(part.headers["content-range"]);
    if (part.status !== 206 || range?.start !== start || range.size !== this.size) {
      discard(part.body);
      throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server stopped honouring byte ranges"));
    }
    const length = end - start + 1;
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of part.body as AsyncIterable<Buffer>) {
        this.count(chunk.length);
        received += chunk.length;
        if (received > length) throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server sent more than the range asked for"));
        chunks.push(chunk);
      }
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    } finally {
      discard(part.body);
    }
    if (received !== length) throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server ended the body early"));
    return Buffer.concat(chunks, length);
  }

  private async *fetchBlocks(index: number, count: number, background: boolean): AsyncGenerator<Block> {
    const mine: number[] = [];
    const last = Number.isFinite(count) ? index + count : index + 1;
    for (let i = index; i < last; i++) {
      if (this.blocks.pending(i)) continue;
      mine.push(i);
      this.blocks.claim(i);
    }
    try {
      yield* this.download(index, count, background);
    } finally {
      for (const i of mine) this.blocks.settle(i);
    }
  }

  private async *download(index: number, count: number, background: boolean): AsyncGenerator<Block> {
    const B = this.limits.blockBytes;
    if (!this.rangeSupported) {
      // No Range support: one full GET, skipping (and caching) up to the wanted block, then streaming on.
      const whole = await this.request();
      yield* this.blocksFrom(whole.body, 0, index, Infinity);
      return;
    }
    // The head's piece of this block is in memory already: the request starts after it.
    const prefix = this.blocks.partialOf(index);
    const start = index * B + (prefix?.length ?? 0);
    const end = Math.min((index + count) * B, this.size ?? Infinity) - 1;
    const part = await this.request({ start, end }, background);
    const range = parseContentRange(part.headers["content-range"]);
    if (part.status !== 206 || range?.start !== start) {
      discard(part.body);
      throw this.fail(new RunnerError("BAD_GATEWAY", "the remote server stopped honouring byte ranges"));
    }
    yield* this.blocksFrom(part.body, index * B, index, index + count, prefix);
  }

  private async request(range?: { start: number; end: number }, background = false) {
    this.requests++;
    try {
      return await openUpstream(this.finalUrl, background ? this.backgroundCtx : this.ctx, range);
    } catch (error) {
      throw this.fail(upstreamError(error, false));
    }
  }

  /**
   * Cuts a body into blocks, caches them, yields blocks fromIndex..toIndex-1, and destroys the body when done
   * or abandoned. blockOffset is a block boundary: the body starts there, or right after `prefix` (bytes of
   * that block already held).
   */
  private async *blocksFrom(body: Readable, blockOffset: number, fromIndex: number, toIndex: number, prefix?: Buffer): AsyncGenerator<Block> {
    const B = this.limits.blockBytes;
    let index = blockOffset / B;
    let parts: Buffer[] = prefix ? [prefix] : [];
    let partBytes = prefix?.length ?? 0;
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
          this.blocks.put(index, block);
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
        this.blocks.put(index, block);
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
}

function slice(index: number, block: Buffer, pos: number, end: number, B: number): Buffer {
  const from = pos - index * B;
  const to = end === Infinity ? block.length : Math.min(block.length, end - index * B + 1);
  return block.subarray(Math.max(0, from), to);
}
