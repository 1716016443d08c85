/**
 * The fetch plan and the facts of a streaming manifest. Reads the manifest already fetched and, for an HLS
 * master, one media playlist: the lowest-bandwidth video variant, whose timeline gives the duration (all variants
 * share it) and whose first segment the previews. Never a segment. Fetching is the caller's (SSRF checks, byte cap,
 * deadline), so this module stays pure and testable.
 */
import type { Streaming } from "../../shared/shapes/streaming-page.ts";
import { firstDashSegment, parseDash } from "./dash.ts";
import { parseHls, type HlsMaster, type HlsMedia } from "./hls.ts";
import type { HlsKey } from "./hls-scan.ts";
import { maxManifestBytes, maxManifestDepth } from "./limits.ts";
import { ManifestError, VariantUnavailableError } from "./manifest-error.ts";
import type { ManifestProtocol } from "./recognize.ts";
import { hlsTrackFacts, type StreamTrackFacts } from "./stream-tracks.ts";
import { hlsChapterUrl, parseChapterFile } from "./stream-chapters.ts";
import type { Chapter } from "../../shared/shapes/tracks.ts";

export interface FetchedManifest {
  text: string;
  /** URL after redirects: relative URIs resolve against it. */
  finalUrl: string;
}

/** Fetches a nested manifest; must apply the same SSRF checks, deadline and maxManifestBytes as any fetch. */
export type ManifestFetcher = (url: string) => Promise<FetchedManifest>;

/** What the runner reads for previews: one early segment of the lowest-bandwidth video variant. */
export interface PreviewPlan {
  /** HLS media playlist holding the segment (the runner's ffmpeg reads it through its proxy). */
  playlistUrl?: string;
  segmentUrl: string;
  initUrl?: string;
  /** Key METHOD when the segment is encrypted. */
  encryption?: string;
}

export interface ManifestFacts {
  streaming: Streaming;
  /** VOD only: sum of segment durations, or the MPD's presentation duration. */
  durationSeconds?: number;
  audioOnly: boolean;
  preview?: PreviewPlan;
  /** Every manifest URL read, in order (the one given first). */
  manifestsRead: string[];
  /** Tracks, encryption and live latency the manifests declare (stream-tracks.ts). */
  trackFacts?: StreamTrackFacts;
}

export async function inspectManifest(protocol: ManifestProtocol, first: FetchedManifest, fetch: ManifestFetcher): Promise<ManifestFacts> {
  checkSize(first.text);
  return protocol === "hls" ? inspectHls(first, fetch) : inspectDash(first, fetch);
}

function checkSize(text: string): void {
  // Characters are at least one byte each: a cheap lower bound of the byte size.
  if (text.length > maxManifestBytes) throw new ManifestError(`the manifest is larger than ${maxManifestBytes} bytes`);
}

async function inspectHls(first: FetchedManifest, fetch: ManifestFetcher): Promise<ManifestFacts> {
  const read = [first.finalUrl];
  const top = parseHls(first.text, first.finalUrl);
  if (top.kind === "media") return withHlsTracks(hlsFacts(undefined, top, first.finalUrl, read), undefined, first.text);
  const chosen = chooseVariant(top);
  // The chapter list, fetched while the media playlist is (no round trip of its own).
  const chapters = readChapters(hlsChapterUrl(first.text, first.finalUrl), fetch, read);
  if (!chosen) return withChapters(withHlsTracks(hlsFacts(top, undefined, undefined, read), first.text, undefined), await chapters);
  // One media playlist, one level below the master (maxManifestDepth): a playlist that is itself a master
  // there, or that leads back to one already read, is a loop or nesting we refuse.
  if (read.includes(chosen)) throw new ManifestError("the master playlist names itself as a variant (a playlist loop)");
  // A variant the origin does not serve leaves the master's renditions, keys and codecs: answer from those.
  const nested = await fetch(chosen).catch((err: unknown) => {
    if (err instanceof VariantUnavailableError) return undefined;
    throw err;
  });
  if (!nested) return withHlsTracks(hlsFacts(top, undefined, undefined, read), first.text, undefined);
  checkSize(nested.text);
  if (read.includes(nested.finalUrl)) throw new ManifestError("a variant redirects back to the master playlist (a playlist loop)");
  read.push(nested.finalUrl);
  const media = parseHls(nested.text, nested.finalUrl);
  if (media.kind === "master") {
    throw new ManifestError(`a variant playlist is itself a master playlist (playlists nest at most ${maxManifestDepth} deep)`);
  }
  return withChapters(withHlsTracks(hlsFacts(top, media, nested.finalUrl, read), first.text, nested.text), await chapters);
}

/** A chapter file, fetched like a nested manifest; a failure only leaves the chapters out. */
async function readChapters(url: string | undefined, fetch: ManifestFetcher, read: string[]): Promise<Chapter[]> {
  if (!url) return [];
  try {
    const file = await fetch(url);
    read.push(file.finalUrl);
    return parseChapterFile(file.text);
  } catch {
    return [];
  }
}

function withChapters(facts: ManifestFacts, chapters: Chapter[]): ManifestFacts {
  return chapters.length > 0 ? { ...facts, trackFacts: { ...facts.trackFacts, chapters } } : facts;
}

function withHlsTracks(facts: ManifestFacts, master: string | undefined, media: string | undefined): ManifestFacts {
  return { ...facts, trackFacts: hlsTrackFacts(master, media, facts.streaming.live, facts.streaming.lowLatency) };
}

/** The lowest-bandwidth variant with pictures; for an audio-only master, its lowest variant or default audio. */
function chooseVariant(master: HlsMaster): string | undefined {
  const video = master.variants.find((v) => v.hasVideo && v.url);
  if (video) return video.url;
  return master.variants.find((v) => v.url)?.url ?? master.audio.find((a) => a.default && a.url)?.url ?? master.audio.find((a) => a.url)?.url;
}

function hlsFacts(master: HlsMaster | undefined, media: HlsMedia | undefined, mediaUrl: string | undefined, read: string[]): ManifestFacts {
  const keys: HlsKey[] = [...(master?.keys ?? []), ...(media?.keys ?? [])];
  const live = media ? !media.endList && media.playlistType !== "VOD" : false;
  const audioOnly = master ? master.variants.length > 0 && master.variants.every((v) => !v.hasVideo) : media ? mediaIsAudio(media) : false;
  const streaming: Streaming = {
    protocol: "hls",
    live,
    encrypted: keys.length > 0,
    ...(keys[0] ? { encryption: keys[0].method } : {}),
    lowLatency: (master?.lowLatency ?? false) || (media?.lowLatency ?? false),
    variants: (master?.variants ?? []).map(({ url: _url, audioGroup: _group, hasVideo: _video, ...fact }) => fact),
    audio: (master?.audio ?? []).map(({ url: _url, groupId: _group, ...fact }) => fact),
    subtitles: master?.subtitles ?? [],
  };
  const segment = media?.firstSegments[0];
  const preview: PreviewPlan | undefined = segment && mediaUrl && !audioOnly
    ? {
        playlistUrl: mediaUrl,
        segmentUrl: segment.url,
        ...(segment.initUrl ? { initUrl: segment.initUrl } : {}),
        ...(segment.encryption ? { encryption: segment.encryption } : {}),
      }
    : undefined;
  return {
    streaming,
    ...(media && !live && media.durationSeconds > 0 ? { durationSeconds: round3(media.durationSeconds) } : {}),
    audioOnly,
    ...(preview ? { preview } : {}),
    manifestsRead: read,
  };
}

/** A lone media playlist says nothing of its codecs; audio-only segment types are the tell. */
function mediaIsAudio(media: HlsMedia): boolean {
  const url = media.firstSegments[0]?.url;
  if (!url) return false;
  const path = new URL(url).pathname.toLowerCase();
  return /\.(aac|mp3|m4a|ac3|ec3|eac3|opus|flac)$/.test(path);
}

async function inspectDash(first: FetchedManifest, fetch: ManifestFetcher): Promise<ManifestFacts> {
  const mpd = parseDash(first.text, first.finalUrl);
  const read = [first.finalUrl];
  const chapters = await readChapters(mpd.chapterUrl, fetch, read);
  const streaming: Streaming = {
    protocol: "dash",
    live: mpd.live,
    encrypted: mpd.encrypted,
    ...(mpd.encryption ? { encryption: mpd.encryption } : {}),
    lowLatency: mpd.lowLatency,
    variants: mpd.variants.map(({ representation: _r, ...fact }) => fact),
    audio: mpd.audio,
    subtitles: mpd.subtitles,
  };
  const lowest = mpd.variants[0];
  const segment = lowest ? firstDashSegment(mpd, lowest.representation) : undefined;
  return withChapters({
    streaming,
    ...(mpd.durationSeconds !== undefined ? { durationSeconds: round3(mpd.durationSeconds) } : {}),
    audioOnly: mpd.variants.length === 0 && mpd.audio.length > 0,
    ...(segment ? { preview: { segmentUrl: segment.url, ...(segment.initUrl ? { initUrl: segment.initUrl } : {}), ...(mpd.encrypted ? { encryption: mpd.encryption ?? "drm" } : {}) } } : {}),
    manifestsRead: read,
    trackFacts: mpd.trackFacts,
  }, chapters);
}

function round3(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
