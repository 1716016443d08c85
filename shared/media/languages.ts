import { iso6392BTo1, iso6392TTo1 } from "iso-639-2";

/**
 * A container's language code as BCP 47: ISO 639-2 (B or T, what MP4 mdhd, Matroska Language and ffprobe's
 * `language` tag hold) becomes its ISO 639-1 code where one exists (eng -> en, ger/deu -> de), a code without
 * one stays as it is (BCP 47 allows three letters). `und`, `mis`, `zxx` and junk give undefined.
 */
export function bcp47Language(code: string | undefined): string | undefined {
  if (!code) return undefined;
  const trimmed = code.trim();
  if (trimmed.length === 0 || trimmed.length > 35 || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(trimmed)) return undefined;
  const [primary, ...rest] = trimmed.split("-");
  const lower = primary!.toLowerCase();
  if (lower === "und" || lower === "mis" || lower === "zxx" || lower === "mul") return undefined;
  const mapped = lower.length === 3 ? (iso6392TTo1[lower] ?? iso6392BTo1[lower] ?? lower) : lower;
  return [mapped, ...rest].join("-");
}

/**
 * The ISO 639-2/T code packed in an MP4 `mdhd` (three 5-bit letters offset by 0x60); undefined for `und` or a
 * QuickTime Macintosh language code (below 0x400), which has no letters.
 */
export function mdhdLanguage(packed: number): string | undefined {
  if (packed < 0x400 || packed === 0x7fff) return undefined;
  const letters = [(packed >> 10) & 31, (packed >> 5) & 31, packed & 31].map((c) => String.fromCharCode(c + 0x60));
  return bcp47Language(letters.join(""));
}
