/// <reference path="./vendor-parsers.d.ts" />
/**
 * Tracks, encryption and live facts of an HLS playlist or DASH MPD: the renditions a player offers (languages,
 * CHARACTERISTICS / Role / Accessibility, closed captions in the video), the keys' methods and key formats or the
 * ContentProtection schemes, and the latency and DVR window a live manifest declares. The playlists reaching here
 * already passed hls-scan.ts (line and attribute bounds) and MPDs checkStructure in dash.ts (element counts), so
 * each pass below is linear in text that is at most maxManifestBytes.
 */
import type { MpdElement } from "mpd-parser";
import { readAttributeList } from "./hls-scan.ts";
import { bcp47Language } from "../../shared/media/languages.ts";
import { keySystemOfId, keySystemOfKeyFormat } from "../../shared/media/key-systems.ts";
import { codecFamily } from "../../shared/media/browser-support.ts";
import {
  maxKeySystems, maxListedTracks, maxTrackLabelLength,
  type AudioTrack, type Live, type MediaTracks, type Protection, type TextTrack, type TrackFacts,
} from "../../shared/shapes/tracks.ts";

export interface StreamTrackFacts extends TrackFacts {
  live?: Live;
}

const describesVideo = "public.accessibility.describes-video";
const captionCharacteristics = ["public.accessibility.transcribes-spoken-dialog", "public.accessibility.describes-music-and-sound"];

/** Fills the track lists, stopping at the listed limit. */
class TrackList {
  readonly tracks: MediaTracks = { video: [], audio: [], text: [] };
  private truncated = false;
  add<K extends "video" | "audio" | "text">(kind: K, track: MediaTracks[K][number]): void {
    const list = this.tracks[kind] as MediaTracks[K][number][];
    if (list.length >= maxListedTracks) { this.truncated = true; return; }
    list.push(track);
  }
  result(): MediaTracks {
    return this.truncated ? { ...this.tracks, truncated: true } : this.tracks;
  }
}

const label = (value: string | undefined) => (value ? value.slice(0, maxTrackLabelLength) : undefined);

/** The video tracks of a stream: one per distinct video codec family among the variants, at its largest size. */
function videoTracks(list: TrackList, variants: { codecs?: string; width?: number; height?: number }[]): void {
  const best = new Map<string, { width?: number; height?: number }>();
  for (const v of variants) {
    const family = v.codecs?.split(",").map((c) => codecFamily(c.trim())).find((f) => f && !audioFamilies.has(f));
    if (!family) continue;
    const seen = best.get(family);
    if (!seen || (v.width ?? 0) > (seen.width ?? 0)) best.set(family, { ...(v.width ? { width: v.width } : {}), ...(v.height ? { height: v.height } : {}) });
  }
  for (const [codec, size] of best) list.add("video", { codec, ...size });
}
const audioFamilies = new Set(["aac", "mp3", "opus", "vorbis", "flac", "ac3", "eac3", "alac", "pcm"]);

/**
 * HLS: EXT-X-MEDIA renditions (AUDIO with CHARACTERISTICS and CHANNELS, SUBTITLES, CLOSED-CAPTIONS INSTREAM-ID),
 * EXT-X-KEY / EXT-X-SESSION-KEY METHOD and KEYFORMAT, EXT-X-SERVER-CONTROL hold-backs, the target duration and
 * the live playlist's window. `master` and `media` are the texts read (either may be absent).
 */
export function hlsTrackFacts(master: string | undefined, media: string | undefined, live: boolean, lowLatency: boolean): StreamTrackFacts {
  const list = new TrackList();
  const systems = new Set<string>();
  let method: string | undefined;
  let holdBack: number | undefined;
  let partHoldBack: number | undefined;
  let targetDuration: number | undefined;
  let window = 0;
  const variants: { codecs?: string; width?: number; height?: number; audio?: string; subtitles?: string }[] = [];
  const audio: { group: string; attributes: Map<string, string> }[] = [];
  for (const text of [master, media]) {
    if (!text) continue;
    for (const line of lines(text)) {
      const colon = line.indexOf(":");
      const tag = line.slice(1, colon < 0 ? line.length : colon);
      const rest = colon < 0 ? "" : line.slice(colon + 1);
      if (tag === "EXTINF") window += Math.max(0, Number.parseFloat(rest) || 0);
      else if (tag === "EXT-X-TARGETDURATION") targetDuration = Number.parseFloat(rest) || undefined;
      else if (tag === "EXT-X-STREAM-INF") {
        const a = attributes(rest, tag);
        const [w, h] = (a.get("RESOLUTION") ?? "").split("x").map(Number);
        variants.push({ ...(a.get("CODECS") ? { codecs: a.get("CODECS")! } : {}), ...(w && h ? { width: w, height: h } : {}),
          ...(a.get("AUDIO") ? { audio: a.get("AUDIO")! } : {}), ...(a.get("SUBTITLES") ? { subtitles: a.get("SUBTITLES")! } : {}) });
      } else if (tag === "EXT-X-MEDIA") {
        const a = attributes(rest, tag);
        if (a.get("TYPE") === "AUDIO") audio.push({ group: a.get("GROUP-ID") ?? "", attributes: a });
        else if (a.get("TYPE") === "SUBTITLES" || a.get("TYPE") === "CLOSED-CAPTIONS") list.add("text", hlsText(a));
      } else if (tag === "EXT-X-KEY" || tag === "EXT-X-SESSION-KEY") {
        const a = attributes(rest, tag);
        const m = a.get("METHOD");
        if (!m || m === "NONE") continue;
        method ??= m.slice(0, 32);
        const system = keySystemOfKeyFormat(a.get("KEYFORMAT"));
        if (system && systems.size < maxKeySystems) systems.add(system);
      } else if (tag === "EXT-X-SERVER-CONTROL") {
        const a = attributes(rest, tag);
        holdBack = seconds(a.get("HOLD-BACK")) ?? holdBack;
        partHoldBack = seconds(a.get("PART-HOLD-BACK")) ?? partHoldBack;
      }
    }
  }
  videoTracks(list, variants);
  for (const { group, attributes: a } of audio) list.add("audio", hlsAudio(a, variants.find((v) => v.audio === group)?.codecs));
  // Subtitle renditions in IMSC (stpp) instead of WebVTT say so in their variants' CODECS.
  if (variants.some((v) => v.subtitles && /(^|,)\s*stpp/.test(v.codecs ?? ""))) {
    for (const t of list.tracks.text) if (t.format === "webvtt") t.format = "stpp";
  }
  const scheme = method === "SAMPLE-AES" && systems.size > 0 ? "cbcs" : method === "SAMPLE-AES-CTR" ? "cenc" : method;
  const protection: Protection | undefined = method ? { encrypted: true, ...(scheme ? { scheme } : {}), keySystems: [...systems] } : undefined;
  const targetLatency = lowLatency ? (partHoldBack ?? holdBack) : holdBack;
  return {
    tracks: list.result(),
    ...(protection ? { protection } : {}),
    ...(live ? { live: {
      lowLatency,
      ...(targetLatency !== undefined ? { targetLatency } : {}),
      ...(media && window > 0 ? { dvrWindow: Math.round(window * 1000) / 1000 } : {}),
      ...(targetDuration ? { targetDuration } : {}),
    } } : {}),
  };
}

function hlsAudio(a: Map<string, string>, codecs: string | undefined): AudioTrack {
  const characteristics = (a.get("CHARACTERISTICS") ?? "").split(",").map((c) => c.trim());
  const channels = Number.parseInt(a.get("CHANNELS") ?? "", 10);
  const codec = codecs?.split(",").map((c) => codecFamily(c.trim())).find((f) => f && audioFamilies.has(f));
  const language = bcp47Language(a.get("LANGUAGE"));
  const name = label(a.get("NAME"));
  return {
    ...(codec ? { codec } : {}),
    ...(language ? { language } : {}),
    ...(characteristics.includes(describesVideo) ? { role: "description" as const } : {}),
    ...(channels > 0 && channels < 256 ? { channels } : {}),
    default: a.get("DEFAULT") === "YES",
    ...(name ? { name } : {}),
  };
}

function hlsText(a: Map<string, string>): TextTrack {
  const language = bcp47Language(a.get("LANGUAGE"));
  const name = label(a.get("NAME"));
  const base = { ...(language ? { language } : {}), default: a.get("DEFAULT") === "YES", ...(name ? { name } : {}) };
  if (a.get("TYPE") === "CLOSED-CAPTIONS") {
    const id = a.get("INSTREAM-ID") ?? "";
    return { kind: "captions", format: /^SERVICE/i.test(id) ? "cea-708" : "cea-608", ...base };
  }
  const characteristics = (a.get("CHARACTERISTICS") ?? "").split(",").map((c) => c.trim());
  const forced = a.get("FORCED") === "YES";
  const kind: TextTrack["kind"] = characteristics.some((c) => captionCharacteristics.includes(c)) ? "captions" : forced ? "forced" : "subtitles";
  return { kind, format: "webvtt", ...base, ...(forced ? { forced: true } : {}) };
}

/** Lines of a playlist that are tags (already bounded by hls-scan.ts). */
function* lines(text: string): Generator<string> {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    start = end + 1;
    if (line.startsWith("#EXT")) yield line;
  }
}

function attributes(value: string, tag: string): Map<string, string> {
  try { return readAttributeList(value, tag); } catch { return new Map(); }
}

function seconds(value: string | undefined): number | undefined {
  const n = value === undefined ? Number.NaN : Number.parseFloat(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) / 1000 : undefined;
}

/** The DOM mpd-parser builds (xmldom): what this module walks. */
interface XmlNode { nodeType: number; nodeName: string; localName?: string | null; getAttribute?(name: string): string | null; childNodes?: { length: number; [i: number]: XmlNode } }

function elements(node: XmlNode, name?: string): XmlNode[] {
  const out: XmlNode[] = [];
  const kids = node.childNodes;
  if (!kids) return out;
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i]!;
    if (k.nodeType === 1 && (!name || (k.localName ?? k.nodeName.replace(/^.*:/, "")) === name)) out.push(k);
  }
  return out;
}
/** An attribute's value; xmldom answers "" for a missing one, which is treated as absent. */
const attr = (node: XmlNode, name: string) => node.getAttribute?.(name) || undefined;

/**
 * DASH: each AdaptationSet of the first Period as a track (contentType/mimeType/codecs, lang, Role and
 * Accessibility descriptors, CEA-608 captions declared with urn:scte:dash:cc:cea-608:2015), ContentProtection
 * (mp4protection scheme, urn:uuid system IDs), and for a dynamic MPD the timeShiftBufferDepth and the
 * ServiceDescription's Latency@target.
 */
export function dashTrackFacts(mpdElement: MpdElement, lowLatency: boolean): StreamTrackFacts {
  const mpd: XmlNode = mpdElement;
  const list = new TrackList();
  const systems = new Set<string>();
  let scheme: string | undefined;
  let encrypted = false;
  const period = elements(mpd, "Period")[0];
  const videos: { codecs?: string; width?: number; height?: number }[] = [];
  for (const set of period ? elements(period, "AdaptationSet") : []) {
    const reps = elements(set, "Representation");
    for (const holder of [set, ...reps]) {
      for (const cp of elements(holder, "ContentProtection")) {
        encrypted = true;
        const uri = (attr(cp, "schemeIdUri") ?? "").toLowerCase();
        if (uri === "urn:mpeg:dash:mp4protection:2011") scheme ??= attr(cp, "value")?.slice(0, 32);
        else if (uri.startsWith("urn:uuid:") && systems.size < maxKeySystems) systems.add(keySystemOfId(uri));
      }
    }
    const first = reps[0];
    const pick = (name: string) => attr(set, name) ?? (first ? attr(first, name) : undefined);
    const mime = pick("mimeType") ?? "";
    const codecs = pick("codecs") ?? "";
    const type = attr(set, "contentType") ?? (mime.split("/")[0] || undefined);
    const language = bcp47Language(attr(set, "lang"));
    const name = label(attr(set, "label"));
    const roles = descriptors(set, "Role");
    const access = descriptors(set, "Accessibility");
    const isText = type === "text" || mime.startsWith("text/") || mime === "application/ttml+xml" || /^(stpp|wvtt)/.test(codecs);
    if (isText) {
      const format = /^stpp/.test(codecs) || mime === "application/ttml+xml" ? "stpp" : /^wvtt/.test(codecs) ? "wvtt" : mime === "text/vtt" ? "webvtt" : (codecs || mime || "text").slice(0, 32);
      const values = [...roles, ...access].map((d) => d.value);
      const forced = values.includes("forced-subtitle");
      const kind: TextTrack["kind"] = values.includes("chapters") ? "chapters" : values.includes("caption") ? "captions" : values.includes("description") ? "descriptions"
        : forced ? "forced" : values.includes("metadata") ? "metadata" : "subtitles";
      list.add("text", { kind, format, ...(language ? { language } : {}), ...(roles.some((r) => r.value === "main") ? { default: true } : {}), ...(name ? { name } : {}), ...(forced ? { forced: true } : {}) });
    } else if (type === "video" || mime.startsWith("video/")) {
      for (const rep of reps.length > 0 ? reps : [set]) {
        const c = attr(rep, "codecs") ?? codecs;
        const w = Number(attr(rep, "width") ?? attr(set, "width"));
        const h = Number(attr(rep, "height") ?? attr(set, "height"));
        videos.push({ ...(c ? { codecs: c } : {}), ...(w > 0 && h > 0 ? { width: w, height: h } : {}) });
      }
    } else if (type === "audio" || mime.startsWith("audio/")) {
      const values = [...roles, ...access];
      const description = values.some((d) => (d.scheme === "urn:tva:metadata:cs:AudioPurposeCS:2007" && d.value === "1") || d.value === "description");
      const role: AudioTrack["role"] = description ? "description" : roles.map((r) => dashAudioRoles[r.value]).find((r) => r !== undefined);
      const codec = codecFamily(codecs.split(",")[0]?.trim() ?? "");
      const channels = Number(attr(elements(set, "AudioChannelConfiguration")[0] ?? set, "value"));
      list.add("audio", {
        ...(codec ? { codec } : {}), ...(language ? { language } : {}), ...(role ? { role } : {}),
        ...(Number.isInteger(channels) && channels > 0 && channels < 256 ? { channels } : {}),
        ...(roles.some((r) => r.value === "main") ? { default: true } : {}), ...(name ? { name } : {}),
      });
    }
    // CEA-608 captions inside the video: value "CC1=eng;CC3=spa" (or "eng;spa"); CEA-708 services (SCTE 214-1):
    // "1=lang:eng;2=lang:eng,war:1,er:1", the language among comma-separated key:value pairs.
    for (const d of access) {
      if (!/^urn:scte:dash:cc:cea-(608|708):2015$/i.test(d.scheme)) continue;
      const format = /708/.test(d.scheme) ? "cea-708" : "cea-608";
      for (const part of d.value.split(";").slice(0, maxListedTracks)) {
        const described = part.includes("=") ? part.split("=")[1]! : part;
        const pairs = described.split(",").map((p) => p.trim());
        const tagged = pairs.find((p) => p.startsWith("lang:"));
        const lang = bcp47Language(tagged ? tagged.slice(5) : pairs.some((p) => p.includes(":")) ? undefined : described);
        list.add("text", { kind: "captions", format, ...(lang ? { language: lang } : {}) });
      }
    }
  }
  videoTracks(list, videos);
  const live = attr(mpd, "type") === "dynamic";
  const depth = isoDuration(attr(mpd, "timeShiftBufferDepth"));
  const latency = Number(attr(elements(elements(mpd, "ServiceDescription")[0] ?? mpd, "Latency")[0] ?? mpd, "target"));
  return {
    tracks: list.result(),
    ...(encrypted ? { protection: { encrypted: true, ...(scheme ? { scheme } : {}), keySystems: [...systems] } } : {}),
    ...(live ? { live: {
      lowLatency,
      ...(Number.isFinite(latency) && latency >= 0 ? { targetLatency: latency / 1000 } : {}),
      ...(depth !== undefined ? { dvrWindow: depth } : {}),
    } } : {}),
  };
}

const dashAudioRoles: Readonly<Record<string, NonNullable<AudioTrack["role"]>>> = {
  main: "main", dub: "dub", commentary: "commentary", description: "description", alternate: "alternate",
};

function descriptors(set: XmlNode, name: string): { scheme: string; value: string }[] {
  return elements(set, name).slice(0, 16).map((d) => ({ scheme: attr(d, "schemeIdUri") ?? "", value: attr(d, "value") ?? "" }));
}

/** An xs:duration of the PnDTnHnMnS form (what MPDs use) in seconds; undefined otherwise. */
function isoDuration(value: string | undefined): number | undefined {
  if (!value || value.length > 64) return undefined;
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value);
  if (!m) return undefined;
  const [, d, h, min, s] = m.map((x) => (x === undefined ? 0 : Number(x)));
  return Math.round(((d as number) * 86400 + (h as number) * 3600 + (min as number) * 60 + (s as number)) * 1000) / 1000;
}
