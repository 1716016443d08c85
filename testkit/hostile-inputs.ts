/**
 * Hostile media made at test set-up, each small, each declaring (or hiding) far more work than its bytes: a
 * FLAC of ten hours of 8-channel silence written frame by frame (0.9 MB: every frame a constant subframe per
 * channel), a HEIC whose `ispe` box declares a smaller picture than its HEVC stream codes, and an 8K H.264
 * video of all-keyframes for storyboards. Shared by the runner tests and bench/hostile-cost.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { heifItemData, readHeifItems } from "../media-runner/src/media/heif-items.ts";

function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC's UTF-8-like coding of a frame number (up to 2^21 here). */
function frameNumber(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

export interface SilentFlac {
  hours: number;
  channels: number;
  /** 48000 only (the frame header's rate code below). */
  sampleRate: 48000;
  /** Samples the STREAMINFO declares; default what the frames hold. Lower it to hide the length. */
  declaredSamples?: number;
}

/**
 * A valid FLAC of digital silence: STREAMINFO, then frames of 65535 samples, each channel one constant subframe
 * (3 bytes), so ten hours of 8 channels are 26368 frames of 36 bytes. Every decoder reads it as what it is.
 */
export function silentFlac({ hours, channels, sampleRate, declaredSamples }: SilentFlac): Buffer {
  const block = 65535;
  const frames = Math.ceil((hours * 3600 * sampleRate) / block);
  const total = frames * block;
  const info = Buffer.alloc(34);
  info.writeUInt16BE(block, 0);
  info.writeUInt16BE(block, 2);
  // min/max frame size 0 (unknown); then rate (20 bits), channels-1 (3), bits-1 (5), total samples (36).
  const packed = (BigInt(sampleRate) << 44n) | (BigInt(channels - 1) << 41n) | (15n << 36n) | BigInt(declaredSamples ?? total);
  info.writeBigUInt64BE(packed, 10);
  const parts: Buffer[] = [Buffer.from("fLaC", "latin1"), Buffer.from([0x80, 0, 0, 34]), info];
  for (let n = 0; n < frames; n++) {
    const header = [0xff, 0xf8, 0x7a, ((channels - 1) << 4) | (0b100 << 1), ...frameNumber(n), (block - 1) >> 8, (block - 1) & 0xff];
    header.push(crc8(Uint8Array.from(header)));
    const frame = Buffer.alloc(header.length + 3 * channels + 2);
    Buffer.from(header).copy(frame, 0);
    // Constant subframes of value 0: a zero header byte and a 16-bit zero each (Buffer.alloc left them 0).
    frame.writeUInt16BE(crc16(frame.subarray(0, frame.length - 2)), frame.length - 2);
    parts.push(frame);
  }
  return Buffer.concat(parts);
}

/** Writes `make(tmp)`'s file at `out` once (a partial file is never seen under the final name). */
function once(out: string, make: (tmp: string) => void): string {
  if (existsSync(out)) return out;
  const tmp = `${out}.${process.pid}.partial`;
  make(tmp);
  renameSync(tmp, out);
  return out;
}

/**
 * A HEIC of a `width` x `height` fractal (drawn at most 2000 px a side, then scaled: lavfi's mandelbrot cannot
 * allocate larger), by heif-enc (x265), with an embedded thumbnail of `thumb` px if given.
 */
export function makeHeic(out: string, width: number, height: number, thumb?: number): string {
  return once(out, (tmp) => {
    const png = `${tmp}.png`;
    const drawn = { w: Math.min(width, 2000), h: Math.min(height, 2000) };
    execFileSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", `mandelbrot=s=${drawn.w}x${drawn.h}`, "-frames:v", "1",
      "-vf", `scale=${width}:${height}`, png]);
    execFileSync("heif-enc", ["-q", "40", ...(thumb ? ["-t", String(thumb)] : []), "-o", tmp, png], { stdio: ["ignore", "ignore", "pipe"] });
    rmSync(png);
  });
}

/** The file with every `ispe` box of from.width x from.height rewritten to say `to` (the HEVC stream is untouched). */
export function lyingIspe(heic: Buffer, from: { width: number; height: number }, to: { width: number; height: number }): Buffer {
  const out = Buffer.from(heic);
  let patched = 0;
  for (let at = out.indexOf("ispe", 0, "latin1"); at >= 0; at = out.indexOf("ispe", at + 4, "latin1")) {
    // type, version+flags (4), width (4), height (4)
    if (out.readUInt32BE(at + 8) === from.width && out.readUInt32BE(at + 12) === from.height) {
      out.writeUInt32BE(to.width, at + 8);
      out.writeUInt32BE(to.height, at + 12);
      patched++;
    }
  }
  if (patched === 0) throw new Error("no ispe box of that size");
  return out;
}

/**
 * An all-keyframe H.264 MP4 (faststart) of `frames` frames of width x height at 1 fps: every frame a keyframe,
 * so a storyboard's tiles are each one full-size decode.
 */
export function keyframeVideo(out: string, width: number, height: number, frames: number, crf = 45): string {
  return once(out, (tmp) => {
    execFileSync("ffmpeg", [
      "-v", "error", "-y", "-f", "lavfi", "-i", `testsrc2=s=${width}x${height}:r=1:d=${frames}`,
      "-c:v", "libx264", "-preset", "ultrafast", "-crf", String(crf), "-g", "1", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", tmp,
    ]);
  });
}

export function writeOnce(out: string, bytes: () => Buffer): string {
  return once(out, (tmp) => writeFileSync(tmp, bytes()));
}


// ---- A grid HEIC built by hand from heif-enc's single pictures (heif-enc 1.15 writes no grids) ----

function box(type: string, ...parts: Buffer[]): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + parts.reduce((sum, p) => sum + p.length, 0));
  header.write(type, 4, "latin1");
  return Buffer.concat([header, ...parts]);
}

function fullBox(type: string, version: number, ...parts: Buffer[]): Buffer {
  return box(type, Buffer.from([version, 0, 0, 0]), ...parts);
}

const u16 = (...values: number[]) => Buffer.from(values.flatMap((v) => [v >> 8, v & 0xff]));
const u32 = (...values: number[]) => Buffer.concat(values.map((v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; }));

/** The raw `hvcC` box and the coded data of a single-picture HEIC made by heif-enc (no thumbnail). */
function singlePicture(file: Buffer): { hvcC: Buffer; data: Buffer } {
  const at = file.indexOf("hvcC", 0, "latin1");
  const hvcC = file.subarray(at - 4, at - 4 + file.readUInt32BE(at - 4));
  const heif = readHeifItems(file);
  return { hvcC, data: heifItemData(heif, file, heif.items.get(heif.primary)!, file.length) };
}

export interface GridHeic {
  /** A single-picture HEIC (no thumbnail) whose picture is every tile. */
  tile: string;
  tileWidth: number;
  tileHeight: number;
  columns: number;
  rows: number;
  /** The grid's output size (at most columns x tileWidth by rows x tileHeight). */
  width: number;
  height: number;
  /** A single-picture HEIC stored as the grid's `thmb` item. */
  thumb?: { file: string; width: number; height: number };
}

/**
 * A grid HEIC as phones write them: a `grid` primary item of columns x rows `hvc1` tiles (all the same coded
 * picture here, sharing one extent), an optional `thmb` thumbnail item, the grid's size in `idat`.
 */
export function gridHeic(spec: GridHeic): Buffer {
  const tile = singlePicture(readFileSync(spec.tile));
  const thumb = spec.thumb ? singlePicture(readFileSync(spec.thumb.file)) : undefined;
  const count = spec.columns * spec.rows;
  const tileIds = Array.from({ length: count }, (_, i) => 2 + i);
  const thumbId = 2 + count;
  const ids = [1, ...tileIds, ...(thumb ? [thumbId] : [])];
  // Tiles are hidden items (infe flag 1), as in a phone's file: only the grid is a top-level picture.
  const infe = (id: number, type: string, hidden = false) =>
    box("infe", Buffer.from([2, 0, 0, hidden ? 1 : 0]), u16(id, 0), Buffer.from(type, "latin1"), Buffer.from([0]));
  const iinf = fullBox("iinf", 0, u16(ids.length), infe(1, "grid"), ...tileIds.map((id) => infe(id, "hvc1", true)), ...(thumb ? [infe(thumbId, "hvc1")] : []));
  const iref = fullBox("iref", 0,
    box("dimg", u16(1, count, ...tileIds)),
    ...(thumb ? [box("thmb", u16(thumbId, 1, 1))] : []));
  const ispe = (w: number, h: number) => fullBox("ispe", 0, u32(w, h));
  const ipco = box("ipco", tile.hvcC, ispe(spec.tileWidth, spec.tileHeight), ispe(spec.width, spec.height),
    ...(thumb && spec.thumb ? [thumb.hvcC, ispe(spec.thumb.width, spec.thumb.height)] : []));
  const associations = [u16(1), Buffer.from([1, 3]), ...tileIds.map((id) => Buffer.concat([u16(id), Buffer.from([2, 0x81, 2])])),
    ...(thumb ? [Buffer.concat([u16(thumbId), Buffer.from([2, 0x84, 5])])] : [])];
  const ipma = fullBox("ipma", 0, u32(ids.length), ...associations);
  const gridData = Buffer.concat([Buffer.from([0, 0, spec.rows - 1, spec.columns - 1]), u16(spec.width, spec.height)]);
  const idat = box("idat", gridData);
  const hdlr = fullBox("hdlr", 0, u32(0), Buffer.from("pict", "latin1"), u32(0, 0, 0), Buffer.from([0]));
  const ftyp = box("ftyp", Buffer.from("heic", "latin1"), u32(0), Buffer.from("mif1heic", "latin1"));
  const iloc = (mdatData: number) => {
    const entry = (id: number, method: number, offset: number, length: number) => Buffer.concat([u16(id, method, 0, 1), u32(offset, length)]);
    return fullBox("iloc", 1, Buffer.from([0x44, 0x00]), u16(ids.length),
      entry(1, 1, 0, gridData.length),
      ...tileIds.map((id) => entry(id, 0, mdatData, tile.data.length)),
      ...(thumb ? [entry(thumbId, 0, mdatData + tile.data.length, thumb.data.length)] : []));
  };
  const meta = (mdatData: number) => fullBox("meta", 0, hdlr, fullBox("pitm", 0, u16(1)), iinf, iref, box("iprp", ipco, ipma), idat, iloc(mdatData));
  const dataStart = ftyp.length + meta(0).length + 8;
  return Buffer.concat([ftyp, meta(dataStart), box("mdat", tile.data, ...(thumb ? [thumb.data] : []))]);
}
