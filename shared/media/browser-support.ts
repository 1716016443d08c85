/**
 * The one declared table of what each browser plays, and the verdict derived from it for a file or stream.
 * Rows describe current stable releases. Sources (checked with the docs/pages corpora; cite when changing a cell):
 * - MDN video codecs: https://developer.mozilla.org/en-US/docs/Web/Media/Guides/Formats/Video_codecs
 * - MDN audio codecs: https://developer.mozilla.org/en-US/docs/Web/Media/Guides/Formats/Audio_codecs
 * - MDN containers: https://developer.mozilla.org/en-US/docs/Web/Media/Guides/Formats/Containers
 * - caniuse: https://caniuse.com/hevc https://caniuse.com/av1 https://caniuse.com/webm https://caniuse.com/opus
 *   https://caniuse.com/flac https://caniuse.com/ac3-ec3 https://caniuse.com/http-live-streaming
 * - Chrome HEVC only through the platform's (hardware) decoder, Chrome 107+:
 *   https://dlguswo333.github.io/post/2023/01-12-en-determining-hevc-support-on-web-browser and the blink-dev
 *   approval "only for exposing OS-provided HEVC support" https://www.mail-archive.com/blink-dev@chromium.org/msg13008.html
 * - Apple: https://developer.apple.com/documentation/http-live-streaming/hls-authoring-specification-for-apple-devices
 * - Android (Chrome for Android also uses the platform decoders): https://developer.android.com/media/platform/supported-formats
 * - Chromium 156 (Debian): canPlayType("application/vnd.apple.mpegurl") = "maybe" (native HLS), checked by
 *   test/browser/playback-verdicts.test.ts, which compares the chrome row with a real Chromium.
 */

import { keySystemBrowsers } from "./key-systems.ts";

export const browsers = ["chrome", "firefox", "safari", "ios", "android", "edge"] as const;
export type Browser = (typeof browsers)[number];

/** yes: plays; no: does not; hardware: only where the platform has a decoder; mse: only through an MSE player. */
export type Support = "yes" | "no" | "hardware" | "mse";
type Row = Readonly<Record<Browser, Support>>;

const all = (s: Support): Row => ({ chrome: s, firefox: s, safari: s, ios: s, android: s, edge: s });

export type CodecFamily =
  | "h264" | "hevc" | "vp8" | "vp9" | "av1" | "theora"
  | "aac" | "mp3" | "opus" | "vorbis" | "flac" | "ac3" | "eac3" | "alac" | "pcm";

/** Codec families (MDN codec guides, caniuse). */
export const codecSupport: Readonly<Record<CodecFamily, Row>> = {
  h264: all("yes"),
  // Chrome, Edge, Android: platform decoder only; Firefox 134+ on Windows with a hardware decoder (MDN, caniuse hevc).
  hevc: { chrome: "hardware", firefox: "hardware", safari: "yes", ios: "yes", android: "hardware", edge: "hardware" },
  vp8: all("yes"),
  // iOS plays VP9 only on devices with a VP9 hardware decoder (caniuse webm: iOS partial).
  vp9: { chrome: "yes", firefox: "yes", safari: "yes", ios: "hardware", android: "yes", edge: "yes" },
  // Safari 17+ only on Apple silicon with an AV1 decoder (M3, A17 Pro) (caniuse av1).
  av1: { chrome: "yes", firefox: "yes", safari: "hardware", ios: "hardware", android: "yes", edge: "yes" },
  theora: { chrome: "no", firefox: "yes", safari: "no", ios: "no", android: "no", edge: "no" },
  aac: all("yes"),
  mp3: all("yes"),
  opus: all("yes"),
  vorbis: { chrome: "yes", firefox: "yes", safari: "no", ios: "no", android: "yes", edge: "yes" },
  flac: all("yes"),
  // Dolby: Apple platforms only among these (caniuse ac3-ec3).
  ac3: { chrome: "no", firefox: "no", safari: "yes", ios: "yes", android: "no", edge: "no" },
  eac3: { chrome: "no", firefox: "no", safari: "yes", ios: "yes", android: "no", edge: "no" },
  alac: { chrome: "no", firefox: "no", safari: "yes", ios: "yes", android: "no", edge: "no" },
  // Linear PCM in WAVE (format tag 1, RFC 2361 `codecs="1"`): every engine (MDN "WAVE", caniuse wav).
  pcm: all("yes"),
};

export type ContainerFamily = "mp4" | "webm" | "ogg" | "mpeg" | "adts" | "flac" | "wav" | "quicktime" | "matroska" | "hls" | "dash";

/** Containers and delivery (MDN containers; caniuse http-live-streaming; MSE for DASH everywhere, iOS 17.1+ ManagedMediaSource). */
export const containerSupport: Readonly<Record<ContainerFamily, Row>> = {
  mp4: all("yes"),
  webm: all("yes"),
  ogg: { chrome: "yes", firefox: "yes", safari: "no", ios: "no", android: "yes", edge: "yes" },
  mpeg: all("yes"),
  // Raw AAC in ADTS frames (audio/aac): every engine has a demuxer for it (MDN's ADTS container row).
  adts: all("yes"),
  flac: all("yes"),
  wav: all("yes"),
  quicktime: { chrome: "no", firefox: "no", safari: "yes", ios: "yes", android: "no", edge: "no" },
  matroska: all("no"),
  hls: { chrome: "yes", firefox: "mse", safari: "yes", ios: "yes", android: "yes", edge: "yes" },
  dash: all("mse"),
};

/** What a build of a browser adds to or takes from its row (open-source Chromium lacks H.264/AAC; no HEVC hardware). */
export interface BuildProfile {
  proprietaryCodecs: boolean;
  hardwareDecoders: boolean;
}
/** The published answer: the vendor's own build on hardware with the common decoders. */
export const vendorBuild: BuildProfile = { proprietaryCodecs: true, hardwareDecoders: true };
const proprietary: ReadonlySet<CodecFamily> = new Set(["h264", "hevc", "aac"]);

/** What the verdict is about: the container MIME, the codecs entries, the HDR transfer, where the moov is. */
export interface PlaybackFacts {
  mime: string;
  codecs: readonly string[];
  hdr?: "sdr" | "pq" | "hlg" | undefined;
  faststart?: boolean | undefined;
  streaming?: "hls" | "dash" | undefined;
  /** Encryption, when the file or manifest declares it: a DRM key system makes the verdict `eme` or `no`. */
  protection?: { encrypted: boolean; scheme?: string | undefined; keySystems: readonly string[] } | undefined;
}

export interface Verdict {
  verdict: "native" | "mse" | "eme" | "no";
  reasons: string[];
  /** With `eme`: the key system this browser's Encrypted Media Extensions offer for it. */
  keySystem?: string;
}

/** The codec family of one codecs-parameter entry; undefined when the table has no row for it. */
export function codecFamily(entry: string): CodecFamily | undefined {
  const e = entry.toLowerCase();
  const prefix = e.split(".")[0]!;
  if (prefix === "avc1" || prefix === "avc3") return "h264";
  if (prefix === "hvc1" || prefix === "hev1") return "hevc";
  if (prefix === "vp09" || e === "vp9") return "vp9";
  if (e === "vp8" || prefix === "vp08") return "vp8";
  if (prefix === "av01") return "av1";
  if (prefix === "mp4a") return e === "mp4a.6b" || e === "mp4a.69" || e === "mp4a.40.34" ? "mp3" : "aac";
  const simple: Record<string, CodecFamily> = {
    mp3: "mp3", opus: "opus", vorbis: "vorbis", flac: "flac", "ac-3": "ac3", "ec-3": "eac3", theora: "theora", alac: "alac", "1": "pcm",
  };
  return simple[e];
}

/** Container family of a MIME type. */
export function containerFamily(mime: string, streaming?: "hls" | "dash"): ContainerFamily | undefined {
  if (streaming) return streaming;
  const base = mime.split(";")[0]!.trim().toLowerCase();
  const map: Record<string, ContainerFamily> = {
    "video/mp4": "mp4", "audio/mp4": "mp4", "audio/x-m4a": "mp4", "video/3gpp": "mp4", "video/webm": "webm", "audio/webm": "webm",
    "audio/ogg": "ogg", "video/ogg": "ogg", "application/ogg": "ogg", "audio/mpeg": "mpeg", "audio/aac": "adts", "audio/x-aac": "adts", "audio/flac": "flac", "audio/x-flac": "flac",
    "audio/wav": "wav", "audio/x-wav": "wav", "audio/vnd.wave": "wav", "video/quicktime": "quicktime",
    "video/x-matroska": "matroska", "audio/x-matroska": "matroska", "video/matroska": "matroska",
  };
  return map[base];
}

function effective(s: Support, family: CodecFamily | undefined, browser: Browser, build: BuildProfile): Support {
  const chromium = browser === "chrome" || browser === "edge" || browser === "android";
  if (chromium && !build.proprietaryCodecs && family && proprietary.has(family)) return "no";
  if (s === "hardware" && !build.hardwareDecoders) return "no";
  return s;
}

/** The verdict for one browser: every codec and the container must be playable; notes say what limits it. */
export function verdictFor(browser: Browser, facts: PlaybackFacts, build: BuildProfile = vendorBuild): Verdict {
  const reasons: string[] = [];
  const container = containerFamily(facts.mime, facts.streaming);
  let playable = true;
  let viaMse = false;
  if (!container) {
    reasons.push(`container ${facts.mime} is not one browsers play`);
    playable = false;
  } else {
    const s = containerSupport[container][browser];
    if (s === "no") { reasons.push(`container ${container} is not supported`); playable = false; }
    if (s === "mse") {
      viaMse = true;
      reasons.push(`${container === "dash" ? "DASH" : "HLS"} needs a Media Source Extensions player (${container === "dash" ? "dash.js" : "hls.js"})`);
    }
  }
  if (facts.codecs.length === 0) reasons.push("codecs unknown: the container alone decides");
  for (const entry of facts.codecs) {
    const family = codecFamily(entry);
    const s = family ? effective(codecSupport[family][browser], family, browser, build) : "no";
    if (s === "no") {
      reasons.push(family ? `codec ${entry} (${family}) is not supported` : `codec ${entry} is not one browsers decode`);
      playable = false;
    } else if (s === "hardware") {
      reasons.push(`codec ${entry} (${family}) plays only with a hardware decoder`);
    }
  }
  if (facts.hdr === "pq" || facts.hdr === "hlg") {
    reasons.push(`HDR transfer ${facts.hdr === "pq" ? "PQ (SMPTE ST 2084)" : "HLG"}: tone-mapped on SDR displays`);
  }
  if (facts.faststart === false && !facts.streaming) {
    reasons.push("moov at the end: progressive playback starts only once the index at the end is fetched");
  }
  if (!playable) return { verdict: "no", reasons };
  if (facts.protection?.encrypted) return protectedVerdict(browser, facts.protection, reasons, viaMse);
  return { verdict: viaMse ? "mse" : "native", reasons };
}

/**
 * An encrypted file never plays natively: it needs EME with a key system the browser has (and a licence server).
 * HLS AES-128 (and SAMPLE-AES) with the plain key format is no DRM: the player fetches the key itself.
 */
function protectedVerdict(browser: Browser, protection: NonNullable<PlaybackFacts["protection"]>, reasons: string[], viaMse: boolean): Verdict {
  const scheme = protection.scheme ? ` (${protection.scheme})` : "";
  if (protection.keySystems.length === 0 && /^(AES-128|SAMPLE-AES)$/i.test(protection.scheme ?? "")) {
    reasons.push(`segments encrypted with ${protection.scheme}: the player fetches the key named in the playlist (no DRM)`);
    return { verdict: viaMse ? "mse" : "native", reasons };
  }
  // EME's encryption schemes are cenc and cbcs (the W3C encryptionScheme registry): no browser's CDM takes the two
  // other Common Encryption schemes, whatever the key system.
  if (/^(cens|cbc1)$/i.test(protection.scheme ?? "")) {
    reasons.push(`encrypted${scheme}: Encrypted Media Extensions decrypt only the cenc and cbcs schemes`);
    return { verdict: "no", reasons };
  }
  const apple = browser === "safari" || browser === "ios";
  // FairPlay, Apple's only key system, decrypts the cbcs scheme alone (and HLS SAMPLE-AES).
  if (apple && /^(cenc|cens)$/i.test(protection.scheme ?? "")) {
    reasons.push(`encrypted${scheme}: FairPlay, the key system of Apple's browsers, decrypts only cbcs`);
    return { verdict: "no", reasons };
  }
  const keySystem = protection.keySystems.find((k) => keySystemBrowsers[k]?.includes(browser));
  if (keySystem) {
    reasons.push(`encrypted${scheme}: plays through Encrypted Media Extensions with ${keySystem} and its licence server`);
    return { verdict: "eme", reasons, keySystem };
  }
  if (protection.keySystems.length === 0) {
    reasons.push(`encrypted${scheme}: plays only through Encrypted Media Extensions and a licence server; the file names no key system (the player's configuration must)`);
    return { verdict: "eme", reasons };
  }
  reasons.push(`encrypted${scheme} for ${protection.keySystems.join(", ")}: none is a key system this browser offers`);
  return { verdict: "no", reasons };
}

/** Verdicts for every browser of the table. */
export function compatibility(facts: PlaybackFacts, build: BuildProfile = vendorBuild): Record<Browser, Verdict> {
  return Object.fromEntries(browsers.map((b) => [b, verdictFor(b, facts, build)])) as Record<Browser, Verdict>;
}
