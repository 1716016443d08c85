/**
 * Pictures no Debian tool here writes, written from their public layouts: DDS textures in BC7 and BC6H blocks
 * (a DX10 header, then 16-byte blocks), and old-style-JPEG TIFF (compression 6, as scanners and cameras wrote it
 * before TIFF 6.0's JPEG was replaced). Pillow (Debian's python3-pil) and libtiff's tools read them back in the
 * tests, so these writers are checked by readers nobody here wrote.
 */

/** A DDS file: "DDS ", the 124-byte header, the DX10 header (2D texture, one surface), then `blocks`. */
export function dx10Dds(width: number, height: number, dxgiFormat: number, blocks: Uint8Array): Buffer {
  const header = Buffer.alloc(4 + 124 + 20);
  header.write("DDS ", 0, "latin1");
  header.writeUInt32LE(124, 4);
  header.writeUInt32LE(0x1 | 0x2 | 0x4 | 0x1000 | 0x80000, 8); // caps, height, width, pixel format, linear size
  header.writeUInt32LE(height, 12);
  header.writeUInt32LE(width, 16);
  header.writeUInt32LE(blocks.length, 20);
  header.writeUInt32LE(1, 28); // one mip level
  header.writeUInt32LE(32, 76);
  header.writeUInt32LE(0x4, 80); // DDPF_FOURCC
  header.write("DX10", 84, "latin1");
  header.writeUInt32LE(0x1000, 108); // DDSCAPS_TEXTURE
  header.writeUInt32LE(dxgiFormat, 128);
  header.writeUInt32LE(3, 132); // TEXTURE2D
  header.writeUInt32LE(1, 140); // array size
  return Buffer.concat([header, blocks]);
}

export const dxgi = { bc6hUnsigned: 95, bc6hSigned: 96, bc7: 98 } as const;

/** Writes `value` as `count` bits at bit `at`, LSB first (the BPTC bit order). */
function putBits(block: Uint8Array, at: number, count: number, value: number): number {
  for (let i = 0; i < count; i++) if ((value >> i) & 1) block[(at + i) >> 3]! |= 1 << ((at + i) & 7);
  return at + count;
}

/** A BC7 mode-6 block of one colour: both endpoints the colour (7 bits + a P-bit each), every index 0. */
export function bc7SolidBlock([r, g, b, a]: readonly [number, number, number, number]): Uint8Array {
  const block = new Uint8Array(16);
  let at = putBits(block, 0, 7, 1 << 6);
  for (const c of [r, g, b, a]) {
    at = putBits(block, at, 7, c >> 1);
    at = putBits(block, at, 7, c >> 1);
  }
  putBits(block, at, 2, (r & 1) * 3); // P-bits: one per endpoint
  return block;
}

const halfToFloat = (h: number) => {
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  return e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15);
};
/** The 10-bit unsigned BC6H endpoint whose decoded value (clamped to [0, 1], times 255) is nearest `c`. */
function bc6hEndpoint(c: number): number {
  let best = 0;
  let bestError = Infinity;
  for (let v = 0; v < 1023; v++) {
    const error = Math.abs(halfToFloat(((v * 64 + 32) * 31) >> 6) * 255 - c);
    if (error < bestError) [best, bestError] = [v, error];
  }
  return best;
}

/** A BC6H mode-11 block (one region, 10-bit endpoints stored whole) of one colour, every index 0. */
export function bc6hSolidBlock([r, g, b]: readonly [number, number, number]): Uint8Array {
  const block = new Uint8Array(16);
  let at = putBits(block, 0, 5, 0b00011);
  const e = [r, g, b].map(bc6hEndpoint);
  for (const v of [...e, ...e]) at = putBits(block, at, 10, v);
  return block;
}

/** The blocks of a width x height texture, each made from the colour at its top-left texel. */
export function textureBlocks(width: number, height: number, blockAt: (x: number, y: number) => Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let y = 0; y < height; y += 4) for (let x = 0; x < width; x += 4) parts.push(blockAt(x, y));
  return Buffer.concat(parts);
}

/**
 * An old-style-JPEG TIFF in its commonest form: one strip that is a whole JFIF stream, also named by
 * JPEGInterchangeFormat (513) and its length (514); YCbCr 4:2:0, 8 bits, little-endian.
 */
export function oldStyleJpegTiff(jpeg: Uint8Array, width: number, height: number): Buffer {
  type Entry = [tag: number, type: 3 | 4, count: number, value: number];
  const entries: Entry[] = [[256, 3, 1, width], [257, 3, 1, height], [258, 3, 3, -1], [259, 3, 1, 6], [262, 3, 1, 6],
    [273, 4, 1, -2], [277, 3, 1, 3], [278, 3, 1, height], [279, 4, 1, jpeg.length], [512, 3, 1, 1], [513, 4, 1, -2],
    [514, 4, 1, jpeg.length], [530, 3, 2, -3]];
  const ifdAt = 8;
  const bitsAt = ifdAt + 2 + entries.length * 12 + 4;
  const dataAt = bitsAt + 6;
  const out = Buffer.alloc(dataAt);
  out.write("II*\0", 0, "latin1");
  out.writeUInt32LE(ifdAt, 4);
  out.writeUInt16LE(entries.length, ifdAt);
  entries.forEach(([tag, type, count, value], i) => {
    const at = ifdAt + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    if (value === -1) out.writeUInt32LE(bitsAt, at + 8);
    else if (value === -2) out.writeUInt32LE(dataAt, at + 8);
    else if (value === -3) { out.writeUInt16LE(2, at + 8); out.writeUInt16LE(2, at + 10); }
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  for (let i = 0; i < 3; i++) out.writeUInt16LE(8, bitsAt + i * 2);
  return Buffer.concat([out, jpeg]);
}

/** A baseline JPEG's tables, frame components and entropy-coded data, by walking its marker segments. */
function jpegParts(jpeg: Uint8Array) {
  const q = new Map<number, Uint8Array>();
  const huffman = new Map<number, Uint8Array>(); // key: class << 4 | id; value: 16 counts + symbols
  const components: { sampling: number; q: number; dc: number; ac: number }[] = [];
  for (let o = 2; o + 4 <= jpeg.length;) {
    const marker = jpeg[o + 1]!;
    const length = (jpeg[o + 2]! << 8) | jpeg[o + 3]!;
    const body = jpeg.subarray(o + 4, o + 2 + length);
    if (marker === 0xdb) for (let p = 0; p + 65 <= body.length; p += 65) q.set(body[p]! & 15, body.subarray(p + 1, p + 65));
    if (marker === 0xc4) {
      for (let p = 0; p + 17 <= body.length;) {
        const n = body.subarray(p + 1, p + 17).reduce((a, c) => a + c, 0);
        huffman.set(body[p]!, body.subarray(p + 1, p + 17 + n));
        p += 17 + n;
      }
    }
    if (marker === 0xc0) for (let i = 0; i < body[5]!; i++) components.push({ sampling: body[7 + i * 3]!, q: body[8 + i * 3]!, dc: 0, ac: 0 });
    if (marker === 0xda) {
      for (let i = 0; i < body[0]!; i++) Object.assign(components[i]!, { dc: body[2 + i * 2]! >> 4, ac: body[2 + i * 2]! & 15 });
      return { q, huffman, components, scan: jpeg.subarray(o + 2 + length, jpeg.length - 2) };
    }
    o += 2 + length;
  }
  throw new Error("no scan in the JPEG");
}

/**
 * An old-style-JPEG TIFF without a JFIF stream: the JPEG's quantisation and Huffman tables stored apart and
 * named per component by JPEGQTables (519), JPEGDCTables (520) and JPEGACTables (521), the strip holding only
 * the entropy-coded data; libtiff rebuilds the JPEG from them. YCbCr 4:2:0, one strip, big-endian.
 */
export function oldStyleJpegTablesTiff(jpeg: Uint8Array, width: number, height: number): Buffer {
  const { q, huffman, components, scan } = jpegParts(jpeg);
  const blobs: Uint8Array[] = [];
  const placed = new Map<Uint8Array, number>();
  const entries: [number, 3 | 4, number[]][] = [];
  const n = 15;
  const ifdAt = 8;
  let at = ifdAt + 2 + n * 12 + 4;
  const place = (bytes: Uint8Array) => {
    if (!placed.has(bytes)) { placed.set(bytes, at); blobs.push(bytes); at += bytes.length; }
    return placed.get(bytes)!;
  };
  const arrays = new Map<number, number[]>([
    [258, [8, 8, 8]],
    [519, components.map((c) => place(q.get(c.q)!))],
    [520, components.map((c) => place(huffman.get(c.dc)!))],
    [521, components.map((c) => place(huffman.get(0x10 | c.ac)!))],
  ]);
  const stripAt = place(scan);
  entries.push([256, 3, [width]], [257, 3, [height]], [258, 3, arrays.get(258)!], [259, 3, [6]], [262, 3, [6]], [273, 4, [stripAt]],
    [277, 3, [3]], [278, 3, [height]], [279, 4, [scan.length]], [284, 3, [1]], [512, 3, [1]], [519, 4, arrays.get(519)!],
    [520, 4, arrays.get(520)!], [521, 4, arrays.get(521)!], [530, 3, [components[0]!.sampling >> 4, components[0]!.sampling & 15]]);
  // Arrays too long for the entry's 4 bytes go after the blobs.
  const out = Buffer.alloc(at + 64);
  out.write("MM\0*", 0, "latin1");
  out.writeUInt32BE(ifdAt, 4);
  out.writeUInt16BE(entries.length, ifdAt);
  let extra = at;
  entries.forEach(([tag, type, values], i) => {
    const e = ifdAt + 2 + i * 12;
    out.writeUInt16BE(tag, e);
    out.writeUInt16BE(type, e + 2);
    out.writeUInt32BE(values.length, e + 4);
    const size = type === 3 ? 2 : 4;
    let target = e + 8;
    if (values.length * size > 4) { out.writeUInt32BE(extra, e + 8); target = extra; extra += values.length * size; }
    values.forEach((v, k) => (size === 2 ? out.writeUInt16BE(v, target + k * 2) : out.writeUInt32BE(v, target + k * 4)));
  });
  let o = ifdAt + 2 + n * 12 + 4;
  for (const blob of blobs) { out.set(blob, o); o += blob.length; }
  return out.subarray(0, extra);
}
