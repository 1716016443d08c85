/**
 * BPTC block decoders: BC7 (8-bit RGBA) and BC6H (half-float RGB), the two DirectX 11 texture formats that
 * neither Debian's ffmpeg 5.1 nor libvips decodes, and for which the registry has no maintained decoder.
 * Each 16-byte block is read LSB-first into a 4x4 tile; every field has a fixed width, so a block costs the
 * same whatever its bytes say, and a reserved mode decodes to zeros as the format requires.
 * The partition shapes and anchor positions are the format's own tables (Khronos Data Format, BPTC).
 */

/** Two-subset shapes: 64 of 16 texels each (subset 0 or 1), row by row. BC6H uses the first 32. */
const shapes2 = "0011001100110011000100010001000101110111011101110001001100110111000000010001001100110111011111110001001101111111"
  + "0000000100110111000000000001001100110111111111110000000101111111000000000001011100010111111111110000000011111111"
  + "0000111111111111000000000000111100001000111011110111000100000000000000001000111001110011000100000011000100000000"
  + "0000100011001110000000001000110001110011001100010011000100010000000010001000110001100110011001100011011001101100"
  + "0001011111101000000011111111000001110001100011100011100110011100010101010101010100001111000011110101101001011010"
  + "0011001111001100001111000011110001010101101010100110100101101001010110101010010101110011110011100001001111001000"
  + "0011001001001100001110111101110001101001100101100011110011000011011001101001100100000110011000000100111001000000"
  + "0010011100100000000000100111001000000100111001000110110010010011001101101100100101100011100111000011100111000110"
  + "0110110011001001011000110011100101111110100000010001100011100111000011110011001100110011111100000010001011101110"
  + "0100010001110111";
/** Three-subset shapes: 64 of 16 texels each (subset 0, 1 or 2). */
const shapes3 = "0011001102212222000100112211222100002001221122110222002200110111000000001122112200110011002200220022002211111111"
  + "0011001122112211000000001111222200001111111122220000111122222222001200120012001201120112011201120122012201220122"
  + "0011011211221222001120012200222000010011011211220111001120012200000011221122112200220022002211110111011102220222"
  + "0001000122212221000000110122012200001100221022100122012200110000001200121122222201101221122101100000011012211221"
  + "0022110211020022011001102002222200110122012200110000200022112221000000021122122202220022001200110011001200220222"
  + "0120012001200120000011112222000001201201201201200120201212010120001122001122001100111122220000110101010122222222"
  + "0000000021212121002211220022112200220011002200110220122102201221010122222222010100002121212121210101010101012222"
  + "0222011102220111000211120002111200002112211221120222011101110222000211121112000201100110011022220000000021122112"
  + "0110011022222222002200110011002200221122112200220000000000002112000200010002000102221222022212220101222222222222"
  + "0111201122012220";
/** The anchor texel of subset 1 (two subsets), and of subsets 1 and 2 (three subsets); subset 0's is texel 0. */
const anchor2 = [15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
  15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6, 6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15];
const anchor3a = [3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3, 3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6, 8, 5, 15, 15,
  8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15, 3, 15, 5, 5, 5, 8, 5, 10, 5, 10, 8, 13, 15, 12, 3, 3];
const anchor3b = [15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8, 15, 8, 15, 3, 15, 8, 15, 8, 3, 15, 6, 10, 15, 15, 10, 8,
  15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8, 15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8];

const weights: Record<number, readonly number[]> = {
  2: [0, 21, 43, 64],
  3: [0, 9, 18, 27, 37, 46, 55, 64],
  4: [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64],
};

interface Layout { subset: Uint8Array; anchor: Uint8Array }

/** Subset of each texel and whether it is an anchor (its index has one bit less). */
function layout(subsets: number, shape: number): Layout {
  const subset = new Uint8Array(16);
  const anchor = new Uint8Array(16);
  anchor[0] = 1;
  if (subsets === 2) {
    for (let i = 0; i < 16; i++) subset[i] = shapes2.charCodeAt(shape * 16 + i) - 48;
    anchor[anchor2[shape]!] = 1;
  } else if (subsets === 3) {
    for (let i = 0; i < 16; i++) subset[i] = shapes3.charCodeAt(shape * 16 + i) - 48;
    anchor[anchor3a[shape]!] = 1;
    anchor[anchor3b[shape]!] = 1;
  }
  return { subset, anchor };
}

/** Every layout, made once: [subsets][shape]. */
const layouts: readonly (readonly Layout[])[] = [[], [layout(1, 0)], Array.from({ length: 64 }, (_, i) => layout(2, i)),
  Array.from({ length: 64 }, (_, i) => layout(3, i))];

/** LSB-first reader over one 16-byte block, a 32-bit word at a time; reads past bit 128 give zeros. */
class BlockBits {
  private at = 0;
  private readonly words = new Uint32Array(5);
  load(block: Uint8Array): this {
    for (let w = 0; w < 4; w++) {
      const o = w * 4;
      this.words[w] = (block[o]! | (block[o + 1]! << 8) | (block[o + 2]! << 16) | (block[o + 3]! << 24)) >>> 0;
    }
    this.at = 0;
    return this;
  }
  /** Up to 16 bits. */
  bits(count: number): number {
    const w = this.at >>> 5;
    const off = this.at & 31;
    this.at += count;
    if (w > 3) return 0;
    let v = this.words[w]! >>> off;
    if (off + count > 32) v |= this.words[w + 1]! << (32 - off);
    return v & ((1 << count) - 1);
  }
  /** `count` bits stored most significant first (BC6H modes 13 and 14 keep their high endpoint bits so). */
  reversed(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) value = (value << 1) | this.bits(1);
    return value;
  }
}

const bits = new BlockBits();
/** Scratch space reused from block to block (decoding is synchronous). */
const endpoints = new Int32Array(24);
const firstIndex = new Uint8Array(16);
const secondIndex = new Uint8Array(16);

const interpolate = (a: number, b: number, w: number) => ((64 - w) * a + w * b + 32) >> 6;

/** BC7: one block into 16 RGBA pixels (64 bytes, texel order row by row). */
export function decodeBc7Block(block: Uint8Array, out: Uint8Array): void {
  const r = bits.load(block);
  let mode = 0;
  while (mode < 8 && r.bits(1) === 0) mode++;
  if (mode === 8) { out.fill(0, 0, 64); return; }
  const subsets = [3, 2, 3, 2, 1, 1, 1, 2][mode]!;
  const shape = mode === 0 ? r.bits(4) : mode === 1 || mode === 2 || mode === 3 || mode === 7 ? r.bits(6) : 0;
  const rotation = mode === 4 || mode === 5 ? r.bits(2) : 0;
  const selector = mode === 4 ? r.bits(1) : 0;
  const colourBits = [4, 6, 5, 7, 5, 7, 7, 5][mode]!;
  const alphaBits = [0, 0, 0, 0, 6, 8, 7, 5][mode]!;
  const count = subsets * 2;
  const ep = endpoints; // endpoint e, channel c at e * 4 + c
  for (let c = 0; c < 3; c++) for (let e = 0; e < count; e++) ep[e * 4 + c] = r.bits(colourBits);
  for (let e = 0; e < count; e++) ep[e * 4 + 3] = alphaBits ? r.bits(alphaBits) : 255;
  // P-bits: one per endpoint (modes 0, 3, 6, 7), one per subset (mode 1), none otherwise.
  const pbits = mode === 0 || mode === 3 || mode === 6 || mode === 7 ? count : mode === 1 ? 2 : 0;
  let p = 0;
  for (let i = 0; i < pbits; i++) p |= r.bits(1) << i;
  for (let e = 0; e < count; e++) {
    const bit = pbits === count ? (p >> e) & 1 : pbits === 2 ? (p >> (e >> 1)) & 1 : -1;
    for (let c = 0; c < 4; c++) {
      if (c === 3 && !alphaBits) continue;
      let precision = c === 3 ? alphaBits : colourBits;
      let v = ep[e * 4 + c]!;
      if (bit >= 0) { v = (v << 1) | bit; precision++; }
      v <<= 8 - precision;
      ep[e * 4 + c] = v | (v >> precision);
    }
  }
  const { subset, anchor } = layouts[subsets]![shape]!;
  const indexBits = mode === 0 || mode === 1 ? 3 : mode === 6 ? 4 : 2;
  const secondBits = mode === 4 ? 3 : mode === 5 ? 2 : 0;
  for (let t = 0; t < 16; t++) firstIndex[t] = r.bits(indexBits - anchor[t]!);
  if (secondBits) for (let t = 0; t < 16; t++) secondIndex[t] = r.bits(t === 0 ? secondBits - 1 : secondBits);
  const w1 = weights[indexBits]!;
  const w2 = secondBits ? weights[secondBits]! : w1;
  for (let t = 0; t < 16; t++) {
    const a = subset[t]! * 8;
    const b = a + 4;
    let colourW = w1[firstIndex[t]!]!;
    let alphaW = colourW;
    if (secondBits) {
      if (selector) alphaW = colourW, colourW = w2[secondIndex[t]!]!;
      else alphaW = w2[secondIndex[t]!]!;
    }
    const o = t * 4;
    out[o] = interpolate(ep[a]!, ep[b]!, colourW);
    out[o + 1] = interpolate(ep[a + 1]!, ep[b + 1]!, colourW);
    out[o + 2] = interpolate(ep[a + 2]!, ep[b + 2]!, colourW);
    out[o + 3] = interpolate(ep[a + 3]!, ep[b + 3]!, alphaW);
    if (rotation) {
      const swap = out[o + rotation - 1]!;
      out[o + rotation - 1] = out[o + 3]!;
      out[o + 3] = swap;
    }
  }
}

/**
 * BC6H modes by their mode bits: endpoint bits, delta bits (R, G, B), whether endpoints after the first are
 * deltas, and where each header bit goes. A field is `<channel><endpoint>[:<bits>][@<shift>][~]` (~: stored
 * most significant bit first), `d` the 5-bit shape. Endpoints 0-3 are w, x, y, z in the format's naming.
 */
const bc6Modes = new Map<number, { ep: number; delta: [number, number, number]; transformed: boolean; fields: string }>([
  [0x00, { ep: 10, delta: [5, 5, 5], transformed: true, fields: "g2@4 b2@4 b3@4 r0:10 g0:10 b0:10 r1:5 g3@4 g2:4 g1:5 b3 g3:4 b1:5 b3@1 b2:4 r2:5 b3@2 r3:5 b3@3 d" }],
  [0x01, { ep: 7, delta: [6, 6, 6], transformed: true, fields: "g2@5 g3@4 g3@5 r0:7 b3 b3@1 b2@4 g0:7 b2@5 b3@2 g2@4 b0:7 b3@3 b3@5 b3@4 r1:6 g2:4 g1:6 g3:4 b1:6 b2:4 r2:6 r3:6 d" }],
  [0x02, { ep: 11, delta: [5, 4, 4], transformed: true, fields: "r0:10 g0:10 b0:10 r1:5 r0@10 g2:4 g1:4 g0@10 b3 g3:4 b1:4 b0@10 b3@1 b2:4 r2:5 b3@2 r3:5 b3@3 d" }],
  [0x06, { ep: 11, delta: [4, 5, 4], transformed: true, fields: "r0:10 g0:10 b0:10 r1:4 r0@10 g3@4 g2:4 g1:5 g0@10 g3:4 b1:4 b0@10 b3@1 b2:4 r2:4 b3 b3@2 r3:4 g2@4 b3@3 d" }],
  [0x0a, { ep: 11, delta: [4, 4, 5], transformed: true, fields: "r0:10 g0:10 b0:10 r1:4 r0@10 b2@4 g2:4 g1:4 g0@10 b3 g3:4 b1:5 b0@10 b2:4 r2:4 b3@1 b3@2 r3:4 b3@4 b3@3 d" }],
  [0x0e, { ep: 9, delta: [5, 5, 5], transformed: true, fields: "r0:9 b2@4 g0:9 g2@4 b0:9 b3@4 r1:5 g3@4 g2:4 g1:5 b3 g3:4 b1:5 b3@1 b2:4 r2:5 b3@2 r3:5 b3@3 d" }],
  [0x12, { ep: 8, delta: [6, 5, 5], transformed: true, fields: "r0:8 g3@4 b2@4 g0:8 b3@2 g2@4 b0:8 b3@3 b3@4 r1:6 g2:4 g1:5 b3 g3:4 b1:5 b3@1 b2:4 r2:6 r3:6 d" }],
  [0x16, { ep: 8, delta: [5, 6, 5], transformed: true, fields: "r0:8 b3 b2@4 g0:8 g2@5 g2@4 b0:8 g3@5 b3@4 r1:5 g3@4 g2:4 g1:6 g3:4 b1:5 b3@1 b2:4 r2:5 b3@2 r3:5 b3@3 d" }],
  [0x1a, { ep: 8, delta: [5, 5, 6], transformed: true, fields: "r0:8 b3@1 b2@4 g0:8 b2@5 g2@4 b0:8 b3@5 b3@4 r1:5 g3@4 g2:4 g1:5 b3 g3:4 b1:6 b2:4 r2:5 b3@2 r3:5 b3@3 d" }],
  [0x1e, { ep: 6, delta: [6, 6, 6], transformed: false, fields: "r0:6 g3@4 b3 b3@1 b2@4 g0:6 g2@5 b2@5 b3@2 g2@4 b0:6 g3@5 b3@3 b3@5 b3@4 r1:6 g2:4 g1:6 g3:4 b1:6 b2:4 r2:6 r3:6 d" }],
  [0x03, { ep: 10, delta: [10, 10, 10], transformed: false, fields: "r0:10 g0:10 b0:10 r1:10 g1:10 b1:10" }],
  [0x07, { ep: 11, delta: [9, 9, 9], transformed: true, fields: "r0:10 g0:10 b0:10 r1:9 r0@10 g1:9 g0@10 b1:9 b0@10" }],
  [0x0b, { ep: 12, delta: [8, 8, 8], transformed: true, fields: "r0:10 g0:10 b0:10 r1:8 r0:2@10~ g1:8 g0:2@10~ b1:8 b0:2@10~" }],
  [0x0f, { ep: 16, delta: [4, 4, 4], transformed: true, fields: "r0:10 g0:10 b0:10 r1:4 r0:6@10~ g1:4 g0:6@10~ b1:4 b0:6@10~" }],
]);

type Field = { channel: number; endpoint: number; bits: number; shift: number; reversed: boolean } | "shape";
const parsedFields = new Map<number, Field[]>([...bc6Modes].map(([code, mode]) => [code, mode.fields.split(" ").map((f): Field => {
  if (f === "d") return "shape";
  const m = /^([rgb])(\d)(?::(\d+))?(?:@(\d+))?(~)?$/.exec(f)!;
  return { channel: "rgb".indexOf(m[1]!), endpoint: Number(m[2]), bits: Number(m[3] ?? 1), shift: Number(m[4] ?? 0), reversed: m[5] === "~" };
})]));

const signExtend = (v: number, bits: number) => (v & (1 << (bits - 1)) ? v - (1 << bits) : v);

function unquantize(v: number, bits: number, signed: boolean): number {
  if (!signed) {
    if (bits >= 15 || v === 0) return v;
    if (v === (1 << bits) - 1) return 0xffff;
    return ((v << 16) + 0x8000) >> bits;
  }
  if (bits >= 16) return v;
  const negative = v < 0;
  let x = Math.abs(v);
  if (x !== 0) x = x >= (1 << (bits - 1)) - 1 ? 0x7fff : ((x << 15) + 0x4000) >> (bits - 1);
  return negative ? -x : x;
}

/** The half-float bits an interpolated value stands for (the format's final scaling by 31/64 or 31/32). */
function toHalf(v: number, signed: boolean): number {
  if (!signed) return (v * 31) >> 6;
  return v < 0 ? 0x8000 | ((-v * 31) >> 5) : (v * 31) >> 5;
}

function halfToFloat(h: number): number {
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Each half float's preview byte: clamped to [0, 1], times 255, truncated. Built on first use (64 KiB). */
let halfBytes: Uint8Array | undefined;
function halfToByte(h: number): number {
  if (!halfBytes) {
    halfBytes = new Uint8Array(65536);
    for (let i = 0; i < 65536; i++) {
      const v = halfToFloat(i);
      halfBytes[i] = v > 0 ? Math.trunc(Math.min(1, v) * 255) : 0;
    }
  }
  return halfBytes[h & 0xffff]!;
}

/**
 * BC6H: one block into 16 RGB pixels as 8-bit (48 bytes). HDR values are clamped to [0, 1] and scaled, which
 * is what a preview can show; reserved modes give black.
 */
export function decodeBc6hBlock(block: Uint8Array, signed: boolean, out: Uint8Array): void {
  const r = bits.load(block);
  let code = r.bits(2);
  if (code > 1) code |= r.bits(3) << 2;
  const mode = bc6Modes.get(code);
  if (!mode) { out.fill(0, 0, 48); return; }
  const e = endpoints; // endpoint i, channel c at i * 3 + c
  e.fill(0, 0, 12);
  let shape = 0;
  for (const field of parsedFields.get(code)!) {
    if (field === "shape") { shape = r.bits(5); continue; }
    const v = field.reversed ? r.reversed(field.bits) : r.bits(field.bits);
    e[field.endpoint * 3 + field.channel]! |= v << field.shift;
  }
  const regions = code === 0x03 || code === 0x07 || code === 0x0b || code === 0x0f ? 1 : 2;
  const count = regions * 2;
  const mask = (1 << mode.ep) - 1;
  for (let c = 0; c < 3; c++) {
    if (signed) e[c] = signExtend(e[c]!, mode.ep);
    for (let i = 1; i < count; i++) {
      let v = e[i * 3 + c]!;
      if (mode.transformed || signed) v = signExtend(v, mode.delta[c]!);
      if (mode.transformed) {
        v = (e[c]! + v) & mask;
        if (signed) v = signExtend(v, mode.ep);
      }
      e[i * 3 + c] = v;
    }
    for (let i = 0; i < count; i++) e[i * 3 + c] = unquantize(e[i * 3 + c]!, mode.ep, signed);
  }
  const { subset, anchor } = layouts[regions]![regions === 2 ? shape : 0]!;
  const indexBits = regions === 2 ? 3 : 4;
  const w = weights[indexBits]!;
  for (let t = 0; t < 16; t++) {
    const weight = w[r.bits(indexBits - anchor[t]!)]!;
    const a = subset[t]! * 6;
    const b = a + 3;
    for (let c = 0; c < 3; c++) out[t * 3 + c] = halfToByte(toHalf(((64 - weight) * e[a + c]! + weight * e[b + c]! + 32) >> 6, signed));
  }
}
