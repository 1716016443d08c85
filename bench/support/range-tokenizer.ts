/**
 * A strtok3 tokenizer over HTTP Range requests, for `music-metadata`'s parseFromTokenizer: what a developer
 * would write with @tokenizer/range (not installed here). Each read the parser makes becomes one Range
 * request of at least `minChunk` bytes, and what was fetched is kept, so reads in the same area cost nothing.
 */
import { AbstractTokenizer, EndOfStreamError, type IRandomAccessFileInfo, type IReadChunkOptions } from "strtok3";

const initialChunk = 4 * 1024;
const minChunk = 1024;

export class RangeTokenizer extends AbstractTokenizer {
  fileInfo: IRandomAccessFileInfo;
  /** Fetched spans, [start, bytes], kept in order of arrival (a parser reads a handful). */
  private readonly spans: Array<[number, Uint8Array]> = [];

  private constructor(private readonly url: string, size: number, mimeType: string | undefined, head: Uint8Array) {
    super();
    this.fileInfo = { size, url, ...(mimeType ? { mimeType } : {}) };
    this.spans.push([0, head]);
  }

  /** One Range request for the first chunk; its Content-Range gives the size. */
  static async open(url: string): Promise<RangeTokenizer> {
    const res = await fetch(url, { headers: { range: `bytes=0-${initialChunk - 1}` } });
    const total = /\/(\d+)$/.exec(res.headers.get("content-range") ?? "")?.[1];
    if (res.status !== 206 || total === undefined) throw new Error(`no Range support at ${url} (${res.status})`);
    const head = new Uint8Array(await res.arrayBuffer());
    return new RangeTokenizer(url, Number(total), res.headers.get("content-type")?.split(";")[0], head);
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.position = position;
  }

  async readBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const n = await this.peekBuffer(buffer, options);
    this.position = (options?.position ?? this.position) + n;
    return n;
  }

  async peekBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const position = options?.position ?? this.position;
    const wanted = options?.length ?? buffer.length;
    const length = Math.max(0, Math.min(wanted, this.fileInfo.size - position));
    if (length < wanted && !options?.mayBeLess) throw new EndOfStreamError();
    let pos = position;
    while (pos < position + length) {
      const span = this.spans.find(([start, bytes]) => pos >= start && pos < start + bytes.length);
      if (span) {
        const [start, bytes] = span;
        const take = Math.min(start + bytes.length - pos, position + length - pos);
        buffer.set(bytes.subarray(pos - start, pos - start + take), pos - position);
        pos += take;
        continue;
      }
      await this.fetchSpan(pos, Math.max(position + length - pos, minChunk));
    }
    return length;
  }

  private async fetchSpan(start: number, length: number): Promise<void> {
    const end = Math.min(start + length, this.fileInfo.size) - 1;
    const res = await fetch(this.url, { headers: { range: `bytes=${start}-${end}` } });
    if (res.status !== 206) throw new Error(`Range request answered ${res.status}`);
    this.spans.push([start, new Uint8Array(await res.arrayBuffer())]);
  }
}
