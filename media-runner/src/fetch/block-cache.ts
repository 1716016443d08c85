/**
 * A RemoteSource's blocks (remote-source.ts): those held, least recently used dropped first once their bytes
 * pass the cap; the head's last piece short of a block; and the blocks being downloaded, so that a second
 * reader waits for them instead of fetching them again (ffprobe opens a new connection for its seek while the
 * first is still pulling the same bytes).
 */
export class BlockCache {
  private readonly held = new Map<number, Buffer>();
  private heldBytes = 0;
  /** The head's bytes past its last whole block: completed by the block's download, served from memory until then. */
  private partial: { index: number; bytes: Buffer } | undefined;
  private readonly inflight = new Map<number, Promise<void>>();
  /** Resolvers of blocks being downloaded, keyed by block index; called as each block lands. */
  private readonly settlers = new Map<number, () => void>();

  constructor(private readonly maxBytes: number) {}

  has(index: number): boolean {
    return this.held.has(index);
  }

  /** A held block, now the most recently used. */
  get(index: number): Buffer | undefined {
    const block = this.held.get(index);
    if (block) {
      this.held.delete(index);
      this.held.set(index, block);
    }
    return block;
  }

  /** A held block, its place in the order untouched. */
  peek(index: number): Buffer | undefined {
    return this.held.get(index);
  }

  put(index: number, block: Buffer): void {
    if (this.partial?.index === index) this.partial = undefined;
    if (this.held.has(index)) return this.settle(index);
    this.held.set(index, block);
    this.heldBytes += block.length;
    this.settle(index);
    for (const [oldest, bytes] of this.held) {
      if (this.heldBytes <= this.maxBytes || oldest === index) break;
      this.held.delete(oldest);
      this.heldBytes -= bytes.length;
    }
  }

  /** Whole blocks of the edge's bytes are held; a last piece short of a block waits for the rest. */
  seed(bytes: Buffer, blockBytes: number, fileSize: number | undefined): void {
    const B = blockBytes;
    let index = 0;
    for (; (index + 1) * B <= bytes.length; index++) this.put(index, bytes.subarray(index * B, (index + 1) * B));
    const rest = bytes.subarray(index * B);
    if (rest.length === 0) return;
    if (index * B + rest.length === fileSize) this.put(index, rest); // the file's last, short block
    else this.partial = { index, bytes: rest };
  }

  partialOf(index: number): Buffer | undefined {
    return this.partial?.index === index ? this.partial.bytes : undefined;
  }

  /** The download of this block under way, if any. */
  pending(index: number): Promise<void> | undefined {
    return this.inflight.get(index);
  }

  /** This block's download starts: readers of it wait until settle(). */
  claim(index: number): void {
    this.inflight.set(index, new Promise<void>((resolve) => this.settlers.set(index, resolve)));
  }

  settle(index: number): void {
    const resolve = this.settlers.get(index);
    this.settlers.delete(index);
    this.inflight.delete(index);
    resolve?.();
  }
}
