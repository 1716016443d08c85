/**
 * The items of a HEIF/HEIC file as the decoder will really meet them, read from the `meta` box: each item's
 * type, its declared size (`ispe`), the coded picture size from its own HEVC sequence parameter set (in its
 * `hvcC`, else at the start of its data), its place in the file (`iloc`), the grid of a derived image, and the
 * references between items (`dimg` tiles, `thmb` thumbnails). The pixel wall reads the coded sizes, not the
 * `ispe` that heif-convert's own header check would trust: a 12000x12000 picture whose `ispe` says 64x64 is
 * 144 Mpx to the decoder. Every read is bounded by the buffer and by the counts below; malformed boxes throw.
 */

import { exactMp4Boxes, Mp4BoxError } from "../../../shared/media/mp4-box-reader.ts";

/** Items, references and properties read at most (a phone's HEIC has a few dozen: 48 tiles, a thumbnail, Exif). */
const maxItems = 4096;
const maxPropertiesPerItem = 64;

export class HeifParseError extends Error {
  override name = "HeifParseError";
}

export interface Extent {
  offset: number;
  length: number;
}

export interface PictureSize {
  width: number;
  height: number;
}

export interface HeifItem {
  id: number;
  type: string;
  /** Declared size (the `ispe` property), if any. */
  ispe?: PictureSize;
  /** hvcC: the parameter set NAL units (VPS, SPS, PPS...) and the NAL length field size. */
  hvcc?: { nalUnits: Buffer[]; lengthSize: number };
  /** Where the data is: in the file (construction method 0) or in `idat` (1). */
  location?: { method: number; extents: Extent[] };
  /** Transform properties in their order: rotation (anticlockwise quarter turns) and mirror (axis). */
  transforms: Array<{ kind: "irot"; quarterTurns: number } | { kind: "imir"; axis: number }>;
  /** Items this one is derived from (`dimg`), in order. */
  tiles: number[];
  /** The item this one is a thumbnail of (`thmb`). */
  thumbnailOf?: number;
}

export interface HeifFile {
  primary: number;
  items: Map<number, HeifItem>;
  /** Bytes of the `idat` box (item data of construction method 1). */
  idat: Buffer;
}

interface Box {
  type: string;
  body: Buffer;
}

/** The boxes of one body, read exactly by the shared MP4 box reader (ISO BMFF, as HEIF is). */
function boxes(data: Buffer): Box[] {
  try {
    return [...exactMp4Boxes(data, { start: 0, end: data.length })].map((box) => ({ type: box.type, body: data.subarray(box.start, box.end) }));
  } catch (error) {
    throw error instanceof Mp4BoxError ? new HeifParseError(error.message) : error;
  }
}

/** A reader over one box's body that throws at its end. */
class Cursor {
  offset = 0;
  constructor(private readonly data: Buffer) {}
  private need(n: number): void {
    if (this.offset + n > this.data.length) throw new HeifParseError("truncated box");
  }
  u8(): number { this.need(1); return this.data[this.offset++]!; }
  u16(): number { this.need(2); const v = this.data.readUInt16BE(this.offset); this.offset += 2; return v; }
  u32(): number { this.need(4); const v = this.data.readUInt32BE(this.offset); this.offset += 4; return v; }
  /** An unsigned integer of 0, 4 or 8 bytes (iloc's sizes). */
  sized(bytes: number): number {
    if (bytes === 0) return 0;
    if (bytes === 4) return this.u32();
    if (bytes === 8) { this.need(8); const v = Number(this.data.readBigUInt64BE(this.offset)); this.offset += 8; return v; }
    throw new HeifParseError(`unsupported field size ${bytes}`);
  }
  fourcc(): string { this.need(4); const v = this.data.toString("latin1", this.offset, this.offset + 4); this.offset += 4; return v; }
  bytes(n: number): Buffer { this.need(n); const v = this.data.subarray(this.offset, this.offset + n); this.offset += n; return v; }
  get rest(): Buffer { return this.data.subarray(this.offset); }
}

function fullBox(body: Buffer): { version: number; flags: number; cursor: Cursor } {
  const cursor = new Cursor(body);
  const word = cursor.u32();
  return { version: word >>> 24, flags: word & 0xffffff, cursor };
}

function itemOf(items: Map<number, HeifItem>, id: number): HeifItem {
  let item = items.get(id);
  if (!item) {
    if (items.size >= maxItems) throw new HeifParseError("too many items");
    item = { id, type: "", transforms: [], tiles: [] };
    items.set(id, item);
  }
  return item;
}

function readIinf(body: Buffer, items: Map<number, HeifItem>): void {
  const { version, cursor } = fullBox(body);
  if (version === 0) cursor.u16(); else cursor.u32();
  for (const infe of boxes(cursor.rest)) {
    if (infe.type !== "infe") continue;
    const entry = fullBox(infe.body);
    if (entry.version < 2) continue; // no item type before version 2
    const id = entry.version === 2 ? entry.cursor.u16() : entry.cursor.u32();
    entry.cursor.u16(); // protection index
    itemOf(items, id).type = entry.cursor.fourcc();
  }
}

function readIloc(body: Buffer, items: Map<number, HeifItem>): void {
  const { version, cursor } = fullBox(body);
  const sizes = cursor.u8();
  const offsetSize = sizes >> 4;
  const lengthSize = sizes & 15;
  const more = cursor.u8();
  const baseOffsetSize = more >> 4;
  const indexSize = version === 1 || version === 2 ? more & 15 : 0;
  const count = version < 2 ? cursor.u16() : cursor.u32();
  if (count > maxItems) throw new HeifParseError("too many item locations");
  for (let i = 0; i < count; i++) {
    const id = version < 2 ? cursor.u16() : cursor.u32();
    const method = version === 1 || version === 2 ? cursor.u16() & 15 : 0;
    cursor.u16(); // data reference index
    const base = cursor.sized(baseOffsetSize);
    const extentCount = cursor.u16();
    if (extentCount > maxItems) throw new HeifParseError("too many extents");
    const extents: Extent[] = [];
    for (let e = 0; e < extentCount; e++) {
      if (indexSize > 0) cursor.sized(indexSize);
      const offset = base + cursor.sized(offsetSize);
      extents.push({ offset, length: cursor.sized(lengthSize) });
    }
    itemOf(items, id).location = { method, extents };
  }
}

function readIref(body: Buffer, items: Map<number, HeifItem>): void {
  const { version, cursor } = fullBox(body);
  for (const ref of boxes(cursor.rest)) {
    const c = new Cursor(ref.body);
    const from = version === 0 ? c.u16() : c.u32();
    const count = c.u16();
    if (count > maxItems) throw new HeifParseError("too many references");
    const to: number[] = [];
    for (let i = 0; i < count; i++) to.push(version === 0 ? c.u16() : c.u32());
    if (ref.type === "dimg") itemOf(items, from).tiles.push(...to);
    if (ref.type === "thmb" && to.length > 0) itemOf(items, from).thumbnailOf = to[0]!;
  }
}

function readHvcc(body: Buffer): HeifItem["hvcc"] {
  const c = new Cursor(body);
  c.bytes(21);
  const lengthSize = (c.u8() & 3) + 1;
  const arrays = c.u8();
  const nalUnits: Buffer[] = [];
  for (let a = 0; a < arrays; a++) {
    c.u8(); // completeness, NAL unit type
    const count = c.u16();
    for (let n = 0; n < count; n++) {
      nalUnits.push(c.bytes(c.u16()));
      if (nalUnits.length > 64) throw new HeifParseError("too many parameter sets");
    }
  }
  return { nalUnits, lengthSize };
}

function readIprp(body: Buffer, items: Map<number, HeifItem>): void {
  const children = boxes(body);
  const properties = boxes(children.find((b) => b.type === "ipco")?.body ?? Buffer.alloc(0));
  for (const ipma of children.filter((b) => b.type === "ipma")) {
    const { version, flags, cursor } = fullBox(ipma.body);
    const count = cursor.u32();
    if (count > maxItems) throw new HeifParseError("too many property associations");
    for (let i = 0; i < count; i++) {
      const item = itemOf(items, version < 1 ? cursor.u16() : cursor.u32());
      const associations = cursor.u8();
      if (associations > maxPropertiesPerItem) throw new HeifParseError("too many properties on one item");
      for (let a = 0; a < associations; a++) {
        const index = flags & 1 ? cursor.u16() & 0x7fff : cursor.u8() & 0x7f;
        const property = index > 0 ? properties[index - 1] : undefined;
        if (!property) continue;
        if (property.type === "ispe") {
          const p = fullBox(property.body).cursor;
          item.ispe = { width: p.u32(), height: p.u32() };
        } else if (property.type === "hvcC") item.hvcc = readHvcc(property.body);
        else if (property.type === "irot") item.transforms.push({ kind: "irot", quarterTurns: new Cursor(property.body).u8() & 3 });
        else if (property.type === "imir") item.transforms.push({ kind: "imir", axis: new Cursor(property.body).u8() & 1 });
      }
    }
  }
}

/** The items of a HEIF file (its whole bytes). Throws HeifParseError when there is no readable `meta`. */
export function readHeifItems(file: Buffer): HeifFile {
  const meta = boxes(file).find((b) => b.type === "meta");
  if (!meta) throw new HeifParseError("no meta box");
  const children = boxes(fullBox(meta.body).cursor.rest);
  const items = new Map<number, HeifItem>();
  let primary: number | undefined;
  let idat: Buffer = Buffer.alloc(0);
  for (const child of children) {
    if (child.type === "pitm") {
      const { version, cursor } = fullBox(child.body);
      primary = version === 0 ? cursor.u16() : cursor.u32();
    } else if (child.type === "iinf") readIinf(child.body, items);
    else if (child.type === "iloc") readIloc(child.body, items);
    else if (child.type === "iref") readIref(child.body, items);
    else if (child.type === "iprp") readIprp(child.body, items);
    else if (child.type === "idat") idat = child.body;
  }
  if (primary === undefined || !items.has(primary)) throw new HeifParseError("no primary item");
  return { primary, items, idat };
}

/** An item's bytes (its extents joined), at most maxBytes. */
export function heifItemData(file: HeifFile, bytes: Buffer, item: HeifItem, maxBytes: number): Buffer {
  const location = item.location;
  if (!location || location.extents.length === 0) throw new HeifParseError(`item ${item.id} has no data`);
  const from = location.method === 0 ? bytes : location.method === 1 ? file.idat : undefined;
  if (!from) throw new HeifParseError(`item ${item.id}: unsupported construction method ${location.method}`);
  const total = location.extents.reduce((sum, e) => sum + e.length, 0);
  if (total > maxBytes) throw new HeifParseError(`item ${item.id} is larger than ${maxBytes} bytes`);
  // A length of 0 means "to the end": only for a single extent.
  return Buffer.concat(location.extents.map((e) => {
    const end = e.length === 0 ? from.length : e.offset + e.length;
    if (e.offset > from.length || end > from.length) throw new HeifParseError(`item ${item.id} lies outside the file`);
    return from.subarray(e.offset, end);
  }));
}

// ---- HEVC sequence parameter set: the coded picture size ----

/** Exp-Golomb and fixed-width reads over an RBSP (emulation prevention removed), throwing at its end. */
class Bits {
  private bit = 0;
  constructor(private readonly data: Buffer) {}
  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.bit >> 3;
      if (byte >= this.data.length) throw new HeifParseError("truncated parameter set");
      v = v * 2 + ((this.data[byte]! >> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return v;
  }
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new HeifParseError("bad Exp-Golomb code");
    return 2 ** zeros - 1 + this.u(zeros);
  }
}

function rbsp(nal: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < nal.length; i++) {
    if (i >= 2 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) continue;
    out.push(nal[i]!);
  }
  return Buffer.from(out);
}

/** HEVC NAL unit type of a NAL unit (its two-byte header). */
export function hevcNalType(nal: Buffer): number {
  return nal.length > 0 ? (nal[0]! >> 1) & 0x3f : -1;
}

const spsNalType = 33;

/**
 * pic_width/height_in_luma_samples of an HEVC SPS NAL unit: the size of the picture the decoder allocates
 * (before the conformance window crops it).
 */
export function hevcSpsSize(nal: Buffer): PictureSize {
  if (hevcNalType(nal) !== spsNalType) throw new HeifParseError("not a sequence parameter set");
  const r = new Bits(rbsp(nal.subarray(2, Math.min(nal.length, 512))));
  r.u(4); // sps_video_parameter_set_id
  const subLayers = r.u(3); // sps_max_sub_layers_minus1
  r.u(1);
  // profile_tier_level(1, subLayers): general profile (88 bits) and level (8).
  r.u(32); r.u(32); r.u(24); r.u(8);
  const profilePresent: number[] = [];
  const levelPresent: number[] = [];
  for (let i = 0; i < subLayers; i++) {
    profilePresent.push(r.u(1));
    levelPresent.push(r.u(1));
  }
  if (subLayers > 0) for (let i = subLayers; i < 8; i++) r.u(2);
  for (let i = 0; i < subLayers; i++) {
    if (profilePresent[i]) { r.u(32); r.u(32); r.u(24); }
    if (levelPresent[i]) r.u(8);
  }
  r.ue(); // sps_seq_parameter_set_id
  if (r.ue() === 3) r.u(1); // chroma_format_idc 4:4:4: separate_colour_plane_flag
  const width = r.ue();
  const height = r.ue();
  if (width === 0 || height === 0) throw new HeifParseError("empty coded picture");
  return { width, height };
}

/** Bytes of an item's data searched for an in-band SPS when its hvcC has none. */
const inBandSearchBytes = 4096;

/** The coded size of an `hvc1` item, from the SPS in its hvcC, else at the start of its data. */
export function hevcItemSize(file: HeifFile, bytes: Buffer, item: HeifItem): PictureSize {
  const sps = item.hvcc?.nalUnits.find((nal) => hevcNalType(nal) === spsNalType);
  if (sps) return hevcSpsSize(sps);
  const lengthSize = item.hvcc?.lengthSize ?? 4;
  // Only the first bytes of the first extent: an item of any size costs the same to check.
  const first = item.location?.extents[0];
  const from = item.location?.method === 1 ? file.idat : bytes;
  const length = first && (first.length === 0 ? Math.max(0, from.length - first.offset) : first.length);
  const head = first && { offset: first.offset, length: Math.min(length!, inBandSearchBytes) };
  const data = heifItemData(file, bytes, { ...item, location: item.location && head && { method: item.location.method, extents: [head] } }, inBandSearchBytes);
  for (let offset = 0; offset + lengthSize <= data.length; ) {
    const length = data.readUIntBE(offset, lengthSize);
    const nal = data.subarray(offset + lengthSize, offset + lengthSize + length);
    if (hevcNalType(nal) === spsNalType) return hevcSpsSize(nal);
    offset += lengthSize + length;
  }
  throw new HeifParseError(`item ${item.id} has no sequence parameter set to check its size against`);
}

/** The output size of a `grid` derived image, from its data (ISO/IEC 23008-12 ImageGrid). */
export function gridSize(file: HeifFile, bytes: Buffer, item: HeifItem): PictureSize & { rows: number; columns: number } {
  const c = new Cursor(heifItemData(file, bytes, item, 64));
  c.u8(); // version
  const flags = c.u8();
  const rows = c.u8() + 1;
  const columns = c.u8() + 1;
  const wide = (flags & 1) === 1;
  const width = wide ? c.u32() : c.u16();
  const height = wide ? c.u32() : c.u16();
  return { width, height, rows, columns };
}
