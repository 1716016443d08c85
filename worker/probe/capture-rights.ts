import type { Capture, Rights } from "../../shared/shapes/provenance.ts";
import { round } from "../../shared/format/metadata-values.ts";
import type { TagGroups } from "./image-tags.ts";

/** What an image's EXIF/IPTC/XMP tags say, in the API's shapes; each part absent when the tags hold none of it. */
export interface ImageDeclarations {
  capture?: Capture;
  rights?: Rights;
  /** IPTC (XMP Iptc4xmpExt) DigitalSourceType, as written. */
  digitalSourceType?: string;
}

export function declarationsOfImageTags(t: TagGroups): ImageDeclarations {
  const ifd0 = t.ifd0 ?? {};
  const exif = t.exif ?? {};
  const gps = t.gps ?? {};
  const iptc = t.iptc ?? {};
  const capture = compact<Capture>({
    takenAt: exifDateTime(exif.DateTimeOriginal, exif.OffsetTimeOriginal) ?? iptcDateTime(iptc.DateCreated, iptc.TimeCreated),
    device: compact({ make: text(ifd0.Make), model: text(ifd0.Model), software: text(ifd0.Software) }),
    location: gpsLocation(gps) ?? xmpLocation(exif),
  });
  const rights = compact<Rights>({
    creator: text(ifd0.Artist) ?? text(iptc.Byline) ?? text(t.dc?.creator),
    copyright: text(ifd0.Copyright) ?? text(iptc.CopyrightNotice) ?? text(t.dc?.rights),
    license: url(t.cc?.license) ?? url(t.xmpRights?.WebStatement),
    credit: text(t.photoshop?.Credit) ?? text(iptc.Credit),
    usageTerms: text(t.xmpRights?.UsageTerms),
  });
  const digitalSourceType = text(t.Iptc4xmpExt?.DigitalSourceType);
  return compact<ImageDeclarations>({ capture, rights, digitalSourceType }) ?? {};
}

/** A tag's text: strings trimmed, XMP lists joined, XMP language alternatives' default value; else undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") {
    // eslint-disable-next-line no-control-regex
    const s = value.replace(/\u0000+$/, "").trim();
    return s.length > 0 && s.length <= 2000 ? s : undefined;
  }
  if (Array.isArray(value)) {
    const parts = value.slice(0, 32).map(text).filter((v): v is string => v !== undefined);
    return parts.length > 0 ? text(parts.join("; ")) : undefined;
  }
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if ("value" in o) return text(o.value);
    if ("resource" in o) return text(o.resource);
  }
  return undefined;
}

function url(value: unknown): string | undefined {
  const s = text(value);
  if (!s || !/^https?:\/\/\S+$/i.test(s)) return undefined;
  try {
    return new URL(s).href === s || new URL(s).href === `${s}/` ? s : new URL(s).href;
  } catch {
    return undefined;
  }
}

const exifDate = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;
const isoDate = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const offsetPattern = /^[+-]\d{2}:\d{2}$/;

/** EXIF "YYYY:MM:DD HH:MM:SS" (or XMP's ISO form) with its offset: ISO 8601, local when there is no offset. */
export function exifDateTime(value: unknown, offset: unknown): string | undefined {
  const s = text(value);
  if (!s) return undefined;
  const off = typeof offset === "string" && offsetPattern.test(offset.trim()) ? offset.trim() : "";
  const m = exifDate.exec(s);
  if (m) return plausible(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`, off);
  const iso = isoDate.exec(s);
  if (iso) return plausible(`${iso[1]}-${iso[2]}-${iso[3]}T${iso[4]}:${iso[5]}:${iso[6] ?? "00"}`, iso[7] ?? off);
  return undefined;
}

/** IPTC IIM DateCreated "YYYYMMDD" and TimeCreated "HHMMSS±HHMM". */
function iptcDateTime(date: unknown, time: unknown): string | undefined {
  const d = /^(\d{4})(\d{2})(\d{2})$/.exec(text(date) ?? "");
  const t = /^(\d{2})(\d{2})(\d{2})([+-]\d{2})(\d{2})?$/.exec(text(time) ?? "");
  if (!d || !t) return undefined;
  return plausible(`${d[1]}-${d[2]}-${d[3]}T${t[1]}:${t[2]}:${t[3]}`, `${t[4]}:${t[5] ?? "00"}`);
}

/** A real calendar time (cameras write "0000:00:00 00:00:00" when unset). */
function plausible(local: string, offset: string): string | undefined {
  const ms = Date.parse(`${local}Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== local || local < "1826") return undefined;
  return `${local}${offset}`;
}

function gpsLocation(gps: Record<string, unknown>): Capture["location"] {
  const latitude = gps.latitude;
  const longitude = gps.longitude;
  if (typeof latitude !== "number" || typeof longitude !== "number") return undefined;
  const alt = typeof gps.GPSAltitude === "number" && Number.isFinite(gps.GPSAltitude) ? gps.GPSAltitude : undefined;
  const below = refIsBelowSeaLevel(gps.GPSAltitudeRef);
  return location(latitude, longitude, alt === undefined ? undefined : below ? -alt : alt);
}

function refIsBelowSeaLevel(ref: unknown): boolean {
  if (typeof ref === "number") return ref === 1;
  if (ref && typeof ref === "object") return (ref as Record<string, unknown>)[0] === 1;
  return false;
}

/** XMP exif:GPSLatitude "DDD,MM.mmN" or "DDD,MM,SSN". */
function xmpLocation(exif: Record<string, unknown>): Capture["location"] {
  const latitude = xmpCoordinate(exif.GPSLatitude);
  const longitude = xmpCoordinate(exif.GPSLongitude);
  return latitude === undefined || longitude === undefined ? undefined : location(latitude, longitude, undefined);
}

function xmpCoordinate(value: unknown): number | undefined {
  const m = /^(\d{1,3}),(\d{1,2}(?:\.\d+)?)(?:,(\d{1,2}(?:\.\d+)?))?([NSEW])$/.exec(text(value) ?? "");
  if (!m) return undefined;
  const degrees = Number(m[1]) + Number(m[2]) / 60 + Number(m[3] ?? 0) / 3600;
  return m[4] === "S" || m[4] === "W" ? -degrees : degrees;
}

/** Valid WGS 84 coordinates (7 decimals: about 1 cm), else undefined. */
export function location(latitude: number, longitude: number, altitudeM: number | undefined): Capture["location"] {
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return {
    latitude: round(latitude, 7),
    longitude: round(longitude, 7),
    ...(altitudeM !== undefined && Number.isFinite(altitudeM) ? { altitudeM: round(altitudeM, 2) } : {}),
  };
}

/** The object without undefined values, or undefined when nothing is left. */
export function compact<T extends object>(value: { [K in keyof T]?: T[K] | undefined }): T | undefined {
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) as T : undefined;
}
