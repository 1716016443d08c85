// The codecs a vhs-utils test file's name declares, and whether a codecs entry the service gives agrees with
// it (pure: the worker tests import it inside workerd).

/** The codecs entries a vhs-utils file's name declares (`avc1.4d401e,ac-3.mkv` -> ["avc1.4d401e", "ac-3"]). */
export function namedCodecs(file: string): string[] {
  const name = file.split("/").pop()!;
  return name.slice(0, name.lastIndexOf(".")).split(",").filter((s) => s.length > 0);
}

/** Video codecs entries, by their four-character prefix (a name lists video first only by convention). */
export const videoCodecs = /^(avc1|avc3|hev1|hvc1|av01|vp8|vp9|vp09|theora|mp4v)\b/;
const containerOf = (file: string) => file.split("/")[1]!;

/**
 * Whether the service's entry says what the file name's entry says, as far as the bytes can say it:
 * - `aac` names no object type: any mp4a.40.N; `mp3` and `mp4a.40.34` (the name's two spellings of MPEG-1/2
 *   Layer III) are MPEG audio however the container tags it: MP4's esds says mp4a.6B (or .69), Matroska and
 *   MPEG-TS only "Layer III", so neither spelling is derivable from the bytes; `vp9` names no profile/level: any vp09.*;
 * - `av01.0.00M.08.0.110` ends in the default monochrome and chroma-subsampling fields, which RFC 6381 users may
 *   leave out: the service's shorter form is the same codec;
 * - HEVC in MPEG-TS and Matroska has no sample entry to say hev1 or hvc1: the rest must match;
 * - hex is case-insensitive.
 */
const mpegLayer3: ReadonlySet<string> = new Set(["mp3", "mp4a.40.34", "mp4a.6b", "mp4a.69"]);

export function agrees(named: string, said: string, container: string): boolean {
  const n = named.toLowerCase();
  const s = said.toLowerCase();
  if (n === s) return true;
  if (n === "aac") return /^mp4a\.40\.\d+$/.test(s);
  if (mpegLayer3.has(n)) return mpegLayer3.has(s);
  if (n === "vp9") return s.startsWith("vp09.");
  if (n.startsWith("av01.") && n.endsWith(".0.110")) return s === n.slice(0, -".0.110".length);
  if (/^(hev1|hvc1)\./.test(n) && container !== "mp4" && container !== "mov") return s.replace(/^(hev1|hvc1)/, "") === n.replace(/^(hev1|hvc1)/, "");
  if (n === "mp4v.20") return s.startsWith("mp4v.20");
  return false;
}

/** The entries a file's name declares, as the service lists them (video first). */
export const expectedOrder = (file: string) => {
  const named = namedCodecs(file);
  return [...named.filter((c) => videoCodecs.test(c)), ...named.filter((c) => !videoCodecs.test(c))];
};

export function codecAgreement(file: string, codecs: readonly string[]): { ok: boolean; why?: string } {
  const named = expectedOrder(file);
  if (codecs.length !== named.length) return { ok: false, why: `said ${JSON.stringify(codecs)} for ${JSON.stringify(named)}` };
  const bad = named.findIndex((n, i) => !agrees(n, codecs[i]!, containerOf(file)));
  return bad < 0 ? { ok: true } : { ok: false, why: `${named[bad]} -> ${codecs[bad]}` };
}

