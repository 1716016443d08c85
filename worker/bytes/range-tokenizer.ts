import { AbstractTokenizer, EndOfStreamError, type IFileInfo, type IReadChunkOptions } from "strtok3";
import type { RangeByteSource } from "./byte-source.ts";

/** strtok3 random-access tokenizer over a RangeByteSource, so music-metadata seeks with Range requests. */
export class RangeTokenizer extends AbstractTokenizer {
  fileInfo: IFileInfo;

  constructor(private readonly source: RangeByteSource, mimeType: string) {
    super();
    this.fileInfo = { size: source.size, mimeType, url: source.url };
  }

  async readBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const normalized = this.normalizeOptions(buffer, options);
    const read = await this.peekBuffer(buffer, normalized);
    this.position = normalized.position + read;
    return read;
  }

  async peekBuffer(buffer: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const normalized = this.normalizeOptions(buffer, options);
    const bytes = await this.source.read(normalized.position, normalized.length);
    if (!normalized.mayBeLess && bytes.byteLength < normalized.length) throw new EndOfStreamError();
    buffer.set(bytes, 0);
    return bytes.byteLength;
  }

  supportsRandomAccess(): boolean {
    return this.source.size !== undefined;
  }

  setPosition(position: number): void {
    this.position = position;
  }
}
