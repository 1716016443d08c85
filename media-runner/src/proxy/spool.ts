/**
 * An origin without Range support is read once: its one GET is streamed into a temporary file as it arrives,
 * and every engine connection (ffprobe, then ffmpeg seeking) is served from that file, waiting only for bytes
 * not landed yet. Without it each seek past the block cache meant another full GET from byte 0. Disk use is
 * bounded by the source's own size cap; the file is deleted when the job releases the source.
 */
import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RemoteSource } from "../fetch/remote-source.ts";

/** Largest chunk handed to an engine connection in one write. */
const readChunkBytes = 256 * 1024;

export class Spool {
  private written = 0;
  private finished = false;
  private closed = false;
  private failure: unknown;
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly source: RemoteSource,
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  /** Starts pulling the whole source in the background. */
  static async start(source: RemoteSource): Promise<Spool> {
    const dir = await mkdtemp(join(tmpdir(), "media-runner-spool-"));
    const file = await open(join(dir, "source"), "w+");
    const spool = new Spool(source, dir, file);
    void spool.fill();
    return spool;
  }

  /** Known once the origin said (Content-Length) or the body ended. */
  get size(): number | undefined {
    return this.finished ? this.written : this.source.size;
  }

  private async fill(): Promise<void> {
    try {
      for await (const chunk of this.source.read(0, Infinity)) {
        if (this.closed) return; // leaving the loop ends the upstream request
        await this.file.write(chunk, 0, chunk.length, this.written);
        this.written += chunk.length;
        this.wake();
      }
      this.finished = true;
    } catch (error) {
      this.failure = error;
    } finally {
      this.wake();
    }
  }

  private wake(): void {
    for (const resolve of [...this.waiters]) resolve();
    this.waiters.clear();
  }

  private landed(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Bytes [start, end] (end may be Infinity), as they land. */
  async *read(start: number, end: number): AsyncGenerator<Buffer> {
    let pos = start;
    while (pos <= end && !this.closed) {
      if (pos >= this.written) {
        if (this.failure !== undefined) throw this.failure;
        if (this.finished) return;
        await this.landed();
        continue;
      }
      const length = Math.min(this.written, end + 1, pos + readChunkBytes) - pos;
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.file.read(buffer, 0, length, pos);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
      pos += bytesRead;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.file.close().catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
