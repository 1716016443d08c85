import { ascii, u16be, u32be } from "../bytes/read-bytes.ts";
import type { Capture, Rights } from "../../shared/shapes/provenance.ts";
import { compact, exifDateTime, location, text } from "./capture-rights.ts";
import { mp4Boxes, type Mp4Box as Box, type Mp4Parent } from "../../shared/media/mp4-box-reader.ts";

/**
 * Capture and rights facts of an MP4/MOV from its moov: the QuickTime metadata keys (moov/meta with an `mdta`
 * handler: com.apple.quicktime.creationdate, .location.ISO6709, .make, .model, .software, .author, .copyright),
 * the iTunes-style item list (udta/meta/ilst: ©ART, cprt, ©day, ©xyz), QuickTime user data text atoms (udta ©xyz,
 * ©ART, ©cpy, ©mak, ©mod, ©swr, cprt), and the movie header's creation time as the last resort for takenAt.
 * Reads only the moov bytes it is given; every box walk is bounded by them.
 */
export interface Mp4Declarations {
  capture?: Capture;
  rights?: Rights;
}

/** Boxes one walk visits at most (a moov's user data holds a few dozen). */
const maxBoxes = 2048;
const mac1904 = Date.UTC(1904, 0, 1);

export function readMp4UserData(moov: Uint8Array): Mp4Declarations {
  const tags = new Map<string, string>();
  const budget = { boxes: 0 };
  for (const box of boxes(moov, 0, moov.length, budget)) {
    if (box.type === "meta") readMeta(moov, box, tags, budget);
    if (box.type === "udta") {
      for (const item of boxes(moov, box.start, box.end, budget)) {
        if (item.type === "meta") readMeta(moov, item, tags, budget);
        else if (!tags.has(item.type)) {
          const value = userDataText(moov, item);
          if (value !== undefined) tags.set(item.type, value);
        }
      }
    }
  }
  const mvhd = [...boxes(moov, 0, moov.length, budget)].find((b) => b.type === "mvhd");
  const get = (...keys: string[]) => keys.map((k) => tags.get(k)).find((v) => v !== undefined);
  const iso6709 = get("com.apple.quicktime.location.ISO6709", "©xyz");
  const loci = udtaBox(moov, "loci", budget);
  const capture = compact<Capture>({
    takenAt: quickTimeDate(get("com.apple.quicktime.creationdate")) ?? (mvhd ? creationTime(moov, mvhd) : undefined),
    device: compact({
      make: get("com.apple.quicktime.make", "©mak"),
      model: get("com.apple.quicktime.model", "©mod"),
      software: get("com.apple.quicktime.software", "©swr"),
    }),
    location: iso6709 ? parseIso6709(iso6709) : loci ? locationInformation(moov, loci) : undefined,
  });
  const rights = compact<Rights>({
    creator: get("com.apple.quicktime.author", "com.apple.quicktime.artist", "©ART", "©aut"),
    copyright: get("com.apple.quicktime.copyright", "cprt", "©cpy"),
  });
  return compact<Mp4Declarations>({ capture, rights }) ?? {};
}

/** The shared box walk, with one budget of boxes over the whole user-data read. */
function* boxes(b: Uint8Array, start: number, end: number, budget: { boxes: number }): Generator<Box> {
  for (const box of mp4Boxes(b, { start, end })) {
    if (budget.boxes++ >= maxBoxes) return;
    yield box;
  }
}

/** `meta`: a full box in ISO files (4 bytes of version/flags first), a plain one in QuickTime files. */
function readMeta(b: Uint8Array, meta: Box, tags: Map<string, string>, budget: { boxes: number }): void {
  const start = ascii(b, meta.start + 4, 4) === "hdlr" ? meta.start : meta.start + 4;
  const children = [...boxes(b, start, meta.end, budget)];
  const keysBox = children.find((c) => c.type === "keys");
  const keys = keysBox ? readKeys(b, keysBox, budget) : [];
  const ilst = children.find((c) => c.type === "ilst");
  if (!ilst) return;
  for (const item of boxes(b, ilst.start, ilst.end, budget)) {
    // mdta item lists name each item by its 1-based index into `keys`.
    const index = u32be(b, item.start - 4) ?? 0;
    const name = keysBox && index >= 1 && index <= keys.length ? keys[index - 1]! : item.type;
    const data = [...boxes(b, item.start, item.end, budget)].find((c) => c.type === "data");
    if (!data || tags.has(name)) continue;
    const value = dataText(b, data);
    if (value !== undefined) tags.set(name, value);
  }
}

function readKeys(b: Uint8Array, keysBox: Box, budget: { boxes: number }): string[] {
  const count = u32be(b, keysBox.start + 4) ?? 0;
  const out: string[] = [];
  for (const entry of boxes(b, keysBox.start + 8, keysBox.end, budget)) {
    if (out.length >= Math.min(count, 512)) break;
    // Each entry: size, namespace (mdta), then the key itself.
    out.push(utf8(b, entry.start, entry.end));
  }
  return out;
}

/** A `data` box: type indicator (1 = UTF-8), locale, then the value. */
function dataText(b: Uint8Array, data: Mp4Parent): string | undefined {
  const type = u32be(b, data.start) ?? 0;
  if (type !== 1 && type !== 0) return undefined;
  return text(utf8(b, data.start + 8, data.end));
}

/**
 * A udta text atom: QuickTime's (©xxx: 16-bit length, 16-bit language, text) or 3GPP's full box (cprt, ...:
 * version/flags, packed language, NUL-terminated text). Items with an inner `data` box (no ilst) are read as such.
 */
function userDataText(b: Uint8Array, item: Box): string | undefined {
  if (item.end - item.start < 4) return undefined;
  if (ascii(b, item.start + 4, 4) === "data") return dataText(b, { type: "data", start: item.start + 8, end: item.end });
  if (item.type.charCodeAt(0) === 0xa9) {
    const length = u16be(b, item.start) ?? 0;
    return length > 0 && item.start + 4 + length <= item.end ? text(utf8(b, item.start + 4, item.start + 4 + length)) : undefined;
  }
  if (item.type === "cprt" || item.type === "auth" || item.type === "perf") {
    return text(utf8(b, item.start + 6, item.end).replace(/\u0000.*$/s, ""));
  }
  return undefined;
}

function udtaBox(b: Uint8Array, type: string, budget: { boxes: number }): Box | undefined {
  for (const box of boxes(b, 0, b.length, budget)) {
    if (box.type !== "udta") continue;
    for (const item of boxes(b, box.start, box.end, budget)) if (item.type === type) return item;
  }
  return undefined;
}

/**
 * 3GPP `loci` (TS 26.244), what ffmpeg's MP4 muxer writes for a location: version/flags, language, a
 * NUL-terminated name, a role byte, then longitude, latitude and altitude as 16.16 fixed point.
 */
function locationInformation(b: Uint8Array, loci: Box): Capture["location"] {
  const nameEnd = b.indexOf(0, loci.start + 6);
  if (nameEnd < 0 || nameEnd + 14 > loci.end) return undefined;
  const fixed = (o: number) => ((u32be(b, o) ?? 0) | 0) / 65536;
  const at = nameEnd + 2;
  return location(fixed(at + 4), fixed(at), fixed(at + 8));
}

/** mvhd's creation time (seconds since 1904, UTC); 0 means unset. */
function creationTime(b: Uint8Array, mvhd: Box): string | undefined {
  const v1 = b[mvhd.start] === 1;
  const seconds = v1 ? (u32be(b, mvhd.start + 4) ?? 0) * 2 ** 32 + (u32be(b, mvhd.start + 8) ?? 0) : (u32be(b, mvhd.start + 4) ?? 0);
  if (seconds === 0) return undefined;
  const ms = mac1904 + seconds * 1000;
  if (!Number.isFinite(ms) || ms > Date.UTC(2200, 0, 1)) return undefined;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** com.apple.quicktime.creationdate: ISO 8601 with an offset ("2024-05-06T07:08:09+0200" or "+02:00"). */
function quickTimeDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const normal = value.trim().replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  return exifDateTime(normal, undefined);
}

/** ISO 6709 "+48.8584+002.2945+035.000/" (degrees; the altitude is optional). */
export function parseIso6709(value: string): Capture["location"] {
  const m = /^([+-]\d{1,2}(?:\.\d+)?)([+-]\d{1,3}(?:\.\d+)?)([+-]\d+(?:\.\d+)?)?(?:CRS[^/]*)?\/?$/.exec(value.trim());
  if (!m) return undefined;
  return location(Number(m[1]), Number(m[2]), m[3] !== undefined ? Number(m[3]) : undefined);
}

function utf8(b: Uint8Array, start: number, end: number): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(b.subarray(start, Math.max(start, Math.min(end, start + 4096))));
}
