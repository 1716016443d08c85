/// <reference path="./vendor-parsers.d.ts" />
/**
 * Reads a DASH MPD with mpd-parser (video.js): the XML is parsed once, its structure bounded, and the
 * Representations read with their inherited attributes. Segment lists are never expanded for the facts
 * (a SegmentTimeline `r` of a billion would make a billion segments); only the first segment of the chosen
 * video Representation is built, from a copy trimmed to one segment.
 */
import { inheritAttributes, stringToMpdXml, toPlaylists, type MpdElement, type MpdRepresentationInfo } from "mpd-parser";
import type { StreamingAudio, StreamingSubtitle, StreamingVariant } from "../../shared/shapes/streaming-page.ts";
import { ManifestError } from "./manifest-error.ts";
import { maxDashAdaptationSets, maxDashBaseUrls, maxDashPeriods, maxDashXmlDepth, maxRenditions, maxVariants } from "./limits.ts";
import { resolveUri } from "./resolve-uri.ts";
import { xmlNestingExceeds } from "./xml-nesting.ts";
import { dashTrackFacts, type StreamTrackFacts } from "./stream-tracks.ts";

export interface DashVideo extends StreamingVariant {
  /** Index into the parsed representations, to build its first segment. */
  representation: number;
}

export interface DashManifest {
  live: boolean;
  durationSeconds: number | undefined;
  encrypted: boolean;
  encryption?: string;
  lowLatency: boolean;
  variants: DashVideo[];
  audio: StreamingAudio[];
  subtitles: StreamingSubtitle[];
  representations: MpdRepresentationInfo[];
  /** Tracks with roles, ContentProtection key systems, live latency and window (stream-tracks.ts). */
  trackFacts: StreamTrackFacts;
  /** A WebVTT chapters file: a text AdaptationSet with Role "chapters" (stream-chapters.ts). */
  chapterUrl?: string;
}

export function parseDash(text: string, manifestUrl: string): DashManifest {
  if (xmlNestingExceeds(text, maxDashXmlDepth)) throw new ManifestError(`the MPD nests elements more than ${maxDashXmlDepth} deep`);
  let mpd: MpdElement;
  try {
    mpd = stringToMpdXml(text);
  } catch (error) {
    throw new ManifestError(`the MPD could not be parsed (${error instanceof Error ? error.message : String(error)})`);
  }
  checkStructure(mpd);
  let representations: MpdRepresentationInfo[];
  try {
    representations = inheritAttributes(mpd, { manifestUri: manifestUrl }).representationInfo;
  } catch (error) {
    throw new ManifestError(`the MPD could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const variants: DashVideo[] = [];
  const audio: StreamingAudio[] = [];
  const subtitles: StreamingSubtitle[] = [];
  const seenAudio = new Set<string>();
  let encryption: string | undefined;
  let chapterUrl: string | undefined;
  representations.forEach((info, index) => {
    const a = info.attributes;
    encryption ??= protectionScheme(a.contentProtection);
    const kind = contentKind(a);
    if (kind === "video") {
      variants.push({
        representation: index,
        bandwidth: int(a.bandwidth) ?? 0,
        ...opt("width", int(a.width)),
        ...opt("height", int(a.height)),
        ...opt("frameRate", typeof a.frameRate === "number" && a.frameRate > 0 ? a.frameRate : undefined),
        ...opt("codecs", str(a.codecs)),
      });
    } else if (kind === "audio") {
      // One entry per adaptation set (language + label), not per bitrate.
      const key = `${str(a.lang) ?? ""}|${str(a.label) ?? ""}|${str(a.codecs) ?? ""}`;
      if (seenAudio.has(key)) return;
      seenAudio.add(key);
      const role = (a.role as { value?: string } | undefined)?.value;
      audio.push({
        ...opt("language", str(a.lang)),
        ...opt("name", str(a.label)),
        ...opt("codecs", str(a.codecs)),
        ...(role ? { default: role === "main" } : {}),
      });
    } else if (kind === "text") {
      const role = (a.role as { value?: string } | undefined)?.value;
      // A chapters file is no subtitle a viewer picks: kept as the chapter source instead.
      if (role === "chapters") {
        chapterUrl ??= str(a.baseUrl) ?? str(a.resolvedUri);
        return;
      }
      subtitles.push({ ...opt("language", str(a.lang)), ...opt("name", str(a.label)), ...(role === "forced-subtitle" ? { forced: true } : {}) });
    }
  });
  if (variants.length > maxVariants) throw new ManifestError(`the MPD has more than ${maxVariants} video representations`);
  if (audio.length + subtitles.length > maxRenditions) throw new ManifestError(`the MPD has more than ${maxRenditions} renditions`);
  variants.sort((x, y) => x.bandwidth - y.bandwidth);
  const root = mpd.getAttribute("type");
  const live = root === "dynamic";
  const duration = representations[0]?.attributes.mediaPresentationDuration;
  const encrypted = mpd.getElementsByTagName("ContentProtection").length > 0;
  const lowLatency = mpd.getElementsByTagName("Latency").length > 0 || /availabilityTimeComplete\s*=\s*["']false/.test(text);
  return {
    live,
    durationSeconds: !live && typeof duration === "number" && duration > 0 ? duration : undefined,
    encrypted,
    ...(encrypted ? { encryption: encryption ?? "drm" } : {}),
    lowLatency,
    variants,
    audio,
    subtitles,
    representations,
    trackFacts: dashTrackFacts(mpd, lowLatency),
    ...(chapterUrl ? { chapterUrl } : {}),
  };
}

/** The first media segment (and its initialisation segment) of one Representation, resolved. */
export function firstDashSegment(manifest: DashManifest, representation: number): { url: string; initUrl?: string } | undefined {
  const info = manifest.representations[representation];
  if (!info) return undefined;
  const segmentInfo: Record<string, unknown> = { ...info.segmentInfo };
  const attributes: Record<string, unknown> = { ...info.attributes, type: "static" };
  const timeline = segmentInfo.segmentTimeline;
  if (Array.isArray(timeline) && timeline.length > 0) segmentInfo.segmentTimeline = [{ ...timeline[0], r: 0 }];
  const template = segmentInfo.template as Record<string, unknown> | undefined;
  const list = segmentInfo.list as Record<string, unknown> | undefined;
  const segmentDuration = Number((template ?? list)?.duration) / (Number((template ?? list)?.timescale) || 1);
  // Without a timeline the segment count is the period's length over the segment duration: make it one.
  if (Number.isFinite(segmentDuration) && segmentDuration > 0) attributes.sourceDuration = segmentDuration;
  if (list && Array.isArray(segmentInfo.segmentUrls)) segmentInfo.segmentUrls = segmentInfo.segmentUrls.slice(0, 1);
  try {
    const [playlist] = toPlaylists([{ attributes, segmentInfo }]);
    const segment = playlist?.segments?.[0];
    const url = segment?.resolvedUri ? resolveUri(segment.resolvedUri, String(attributes.baseUrl ?? "")) : undefined;
    if (!url) return undefined;
    const initUrl = segment?.map?.resolvedUri ? resolveUri(segment.map.resolvedUri, url) : undefined;
    return { url, ...(initUrl ? { initUrl } : {}) };
  } catch {
    return undefined;
  }
}

function checkStructure(mpd: MpdElement): void {
  const count = (name: string) => mpd.getElementsByTagName(name).length;
  if (mpd.nodeName !== "MPD" && mpd.localName !== "MPD") throw new ManifestError("the document is not an MPD");
  if (count("Period") > maxDashPeriods) throw new ManifestError(`the MPD has more than ${maxDashPeriods} periods`);
  if (count("AdaptationSet") > maxDashAdaptationSets) throw new ManifestError(`the MPD has more than ${maxDashAdaptationSets} adaptation sets`);
  // BaseURLs multiply across MPD, Period, AdaptationSet and Representation levels.
  if (count("BaseURL") > maxDashBaseUrls) throw new ManifestError(`the MPD has more than ${maxDashBaseUrls} BaseURL elements`);
  if (count("Representation") > maxVariants + maxRenditions) {
    throw new ManifestError(`the MPD has more than ${maxVariants + maxRenditions} representations`);
  }
}

function contentKind(a: Record<string, unknown>): "video" | "audio" | "text" | undefined {
  const type = str(a.contentType);
  const mime = str(a.mimeType) ?? "";
  const codecs = str(a.codecs) ?? "";
  if (type === "text" || mime.startsWith("text/") || mime === "application/ttml+xml" || /^(stpp|wvtt)/.test(codecs)) return "text";
  if (type === "video" || mime.startsWith("video/")) return "video";
  if (type === "audio" || mime.startsWith("audio/")) return "audio";
  return undefined;
}

function protectionScheme(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const systems = value as Record<string, { attributes?: { value?: string } }>;
  const scheme = systems.mp4protection?.attributes?.value;
  if (scheme) return scheme;
  return Object.keys(systems)[0];
}

function int(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
