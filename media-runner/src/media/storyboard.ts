/**
 * A storyboard sprite: evenly spaced frames composed into one WebP by sharp.
 *
 * MP4/MOV with H.264 or HEVC (the common case), on an origin with Range support: the moov's sample tables
 * (mp4-keyframes.ts) say where each keyframe is; for each tile the keyframe nearest its time is picked, and only
 * those samples' bytes are read, in exact Range requests (near ones coalesced, their count bounded by what is
 * left of the inspection's request budget). The moov itself is already in the job's block cache (ffprobe read
 * it). The keyframes, as an Annex B stream with their parameter sets, are decoded by one ffmpeg run reading
 * its standard input (no network: the bytes came through the job's checked RemoteSource), under the same
 * engine bounds as every other run. Measured on a 30 MB 720p faststart MP4 (bench/storyboard.ts): 26.5% of the
 * file and 123 requests with the per-tile seeks below, about the keyframes' own bytes with this path.
 *
 * Anything else (WebM/MKV, AVI, other codecs, fragmented MP4, no Range support, or sample tables this reader
 * refuses): one ffmpeg run per tile seeking to its time with `-ss` before `-i` (keyframe-before, frame.ts)
 * through the Range proxy, so the demuxer reads the index and then each keyframe with the packets around it.
 * One ffmpeg reading the whole file through a keyframe `select` filter would pull the entire file
 * (test/runner/storyboard-waveform.test.ts measures the three).
 */
import sharp from "sharp";
import { storyboardPlan, storyboardTileHeight, storyboardTileWidth } from "../../../shared/media/storyboard-plan.ts";
import type { RunnerStoryboard } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { engineBoundArgs, engineDiagnostics, ffmpegOutputBoundArgs } from "./engine-args.ts";
import { extractFrame, type FrameOptions } from "./frame.ts";
import { readMoov } from "./mp4-source.ts";
import { engineMaxAllocBytes, engineMaxStreams, probeAnalyzeMicroseconds, probeSizeBytes } from "./limits.ts";
import {
  annexBAccessUnit, Mp4IndexError, parameterSets, selectKeyframes, type KeyframeCodec,
} from "./mp4-keyframes.ts";
import { runProcess } from "./run-process.ts";
import { boundStoryboardPlan } from "./work-walls.ts";

/** ffmpeg runs at a time: the decoders' threads (engineThreads each) already fill the runner's share of cores. */
export const storyboardConcurrency = 2;
const spriteWebpQuality = 70;
/** Keyframes closer than this are read in one request (a round trip costs more than this many bytes). */
export const coalesceGapBytes = 32 * 1024;
/** Most Range requests one storyboard makes for its keyframes, whatever the budget leaves. */
export const maxKeyframeRequests = 48;
/** Keyframe requests in flight at once. */
const keyframeRequestConcurrency = 4;
/** The keyframes' bytes held at once (and fed to the decoder); more goes the general way. */
export const maxKeyframeBytes = 32 * 1024 * 1024;

export interface StoryboardInput {
  durationSeconds: number;
  /** Displayed size of the picture (after rotation), for the tiles' aspect. */
  width: number;
  height: number;
  /** Clockwise degrees a player turns the picture (the sample tables' decode has no display matrix). */
  rotation?: number;
  /** Coded pixels of one frame (what the decoder allocates): bounds the tiles by pixels decoded (work-walls.ts). */
  framePixels?: number;
}

export type StoryboardFrameOptions = Omit<FrameOptions, "mode" | "maxPx">;

/** What reading the keyframes by byte range needs: the job's source and what ffprobe called the container. */
export interface KeyframeReading {
  source: RemoteSource;
  /** ffprobe's format_name ("mov,mp4,m4a,3gp,3g2,mj2" for MP4/MOV). */
  formatName: string | undefined;
  /** Origin requests the keyframe reads may make (what the inspection's budget leaves, less a reserve). */
  maxRequests: number;
}

export interface StoryboardResult {
  storyboard: RunnerStoryboard;
  /** keyframes-by-range: the sample tables' path; seek-per-tile: one ffmpeg seek per tile through the proxy. */
  method: "keyframes-by-range" | "seek-per-tile";
  /** Why the sample tables' path was not taken, when it was not. */
  fallback?: string;
}

/** Frame times of the plan: tile i shows the keyframe nearest i x interval (clamped inside the file). */
export function tileTimes(durationSeconds: number, interval: number, tiles: number): number[] {
  const last = Math.max(0, durationSeconds - 0.1);
  return Array.from({ length: tiles }, (_, i) => Math.min(i * interval, last));
}

export async function buildStoryboard(
  input: string, video: StoryboardInput, options: StoryboardFrameOptions, keyframes?: KeyframeReading,
): Promise<StoryboardResult> {
  if (!(video.durationSeconds > 0)) throw new RunnerError("UNSUPPORTED_MEDIA", "a storyboard needs the video's duration");
  const plan = boundStoryboardPlan(storyboardPlan(video.durationSeconds), video.framePixels ?? video.width * video.height);
  const tileWidth = storyboardTileWidth;
  const tileHeight = video.width > 0 && video.height > 0 ? storyboardTileHeight(video.width, video.height) : Math.round((tileWidth * 9) / 16);
  const times = tileTimes(video.durationSeconds, plan.interval, plan.tiles);
  const grid = { tileWidth, tileHeight };
  let tiles: Array<Buffer | undefined> | undefined;
  let fallback: string | undefined;
  if (keyframes) {
    try {
      tiles = await tilesFromKeyframes(keyframes, times, grid, video, options);
      if (!tiles) fallback = "not an MP4/MOV H.264 or HEVC track on an origin with Range support";
    } catch (error) {
      // Only what this path itself refused falls back; the origin, the budget and the deadline fail the stage.
      if (!(error instanceof Mp4IndexError || error instanceof KeyframeDecodeError)) throw error;
      fallback = error.message;
    }
  }
  const method = tiles ? "keyframes-by-range" : "seek-per-tile";
  tiles ??= await tilesBySeeking(input, times, grid, options);
  if (tiles.every((tile) => tile === undefined)) throw new RunnerError("CORRUPT_MEDIA", "no video frame could be decoded for the storyboard");
  const rows = Math.ceil(plan.tiles / plan.columns);
  const sprite = await sharp({ create: { width: plan.columns * tileWidth, height: rows * tileHeight, channels: 3, background: "#000" } })
    .composite(tiles.flatMap((tile, i) => tile
      ? [{ input: tile, raw: { width: tileWidth, height: tileHeight, channels: 3 as const }, left: (i % plan.columns) * tileWidth, top: Math.floor(i / plan.columns) * tileHeight }]
      : []))
    .webp({ quality: spriteWebpQuality })
    .toBuffer();
  return {
    storyboard: { base64: sprite.toString("base64"), contentType: "image/webp", tiles: plan.tiles, columns: plan.columns, tileWidth, tileHeight, interval: plan.interval },
    method,
    ...(fallback !== undefined ? { fallback } : {}),
  };
}

interface TileGrid {
  tileWidth: number;
  tileHeight: number;
}

/** The general path: one ffmpeg seek per tile through the proxy, tiles as raw RGB of the tile's size. */
async function tilesBySeeking(input: string, times: number[], grid: TileGrid, options: StoryboardFrameOptions): Promise<Array<Buffer | undefined>> {
  const { tileWidth, tileHeight } = grid;
  const frameOptions: FrameOptions = { ...options, mode: "keyframe-before", maxPx: Math.max(tileWidth, tileHeight) };
  const tiles: Array<Buffer | undefined> = new Array(times.length);
  let next = 0;
  const worker = async () => {
    while (next < times.length) {
      const index = next++;
      const png = await extractFrame(input, times[index]!, frameOptions);
      tiles[index] = png ? await sharp(png).resize(tileWidth, tileHeight, { fit: "contain", background: "#000" }).removeAlpha().raw().toBuffer() : undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.min(storyboardConcurrency, times.length) }, worker));
  return tiles;
}

/**
 * The decoder failed or gave fewer pictures than keyframes fed (one did not decode): the general path takes
 * over. The message is public (the stage's method in diagnostics); the engine's stderr stays in `detail`.
 */
export class KeyframeDecodeError extends Error {
  override name = "KeyframeDecodeError";
  constructor(message: string, readonly detail?: string) {
    super(message);
  }
}

/** The sample tables' path; undefined when it does not apply to this file. */
async function tilesFromKeyframes(
  reading: KeyframeReading, times: number[], grid: TileGrid, video: StoryboardInput, options: StoryboardFrameOptions,
): Promise<Array<Buffer | undefined> | undefined> {
  const { source } = reading;
  if (!source.rangeSupported || source.size === undefined || !/(^|,)(mov|mp4)(,|$)/.test(reading.formatName ?? "")) return undefined;
  const moov = await readMoov(source, source.size);
  if (!moov) return undefined;
  const selection = selectKeyframes(moov, times, source.size);
  if (!selection) return undefined;
  const total = selection.keyframes.reduce((sum, k) => sum + k.size, 0);
  if (total > maxKeyframeBytes) throw new Mp4IndexError("the keyframes are too large to hold");
  const ranges = planRanges(selection.keyframes.map((k) => ({ start: k.offset, end: k.offset + k.size - 1 })), coalesceGapBytes, reading.maxRequests);
  if (ranges.reduce((sum, r) => sum + r.end - r.start + 1, 0) > maxKeyframeBytes) throw new Mp4IndexError("the coalesced keyframe ranges are too large to hold");
  const bodies = await readRanges(source, ranges);
  const params = parameterSets(selection.codec, selection.config);
  const stream = Buffer.concat(selection.keyframes.flatMap((k) => {
    const r = ranges.findIndex((range) => range.start <= k.offset && k.offset + k.size - 1 <= range.end);
    const body = bodies[r]!;
    return annexBAccessUnit(selection.codec, params, body.subarray(k.offset - ranges[r]!.start, k.offset - ranges[r]!.start + k.size));
  }));
  const frames = await decodeKeyframes(stream, selection.codec, selection.keyframes.length, grid, video.rotation ?? 0, options);
  return selection.pick.map((i) => frames[i]);
}

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The requests for a set of byte ranges: in file order, ranges at most `gap` bytes apart joined, then the
 * closest neighbours joined until at most maxRequests remain (fewer round trips for a few more bytes).
 */
export function planRanges(wanted: readonly ByteRange[], gap: number, maxRequests: number): ByteRange[] {
  const merged: ByteRange[] = [];
  for (const range of [...wanted].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1 + gap) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  const cap = Math.max(1, Math.floor(maxRequests));
  while (merged.length > cap) {
    let closest = 0;
    for (let i = 1; i < merged.length - 1; i++) {
      if (merged[i + 1]!.start - merged[i]!.end < merged[closest + 1]!.start - merged[closest]!.end) closest = i;
    }
    merged[closest]!.end = Math.max(merged[closest]!.end, merged[closest + 1]!.end);
    merged.splice(closest + 1, 1);
  }
  return merged;
}

async function readRanges(source: RemoteSource, ranges: ByteRange[]): Promise<Buffer[]> {
  const bodies: Buffer[] = new Array(ranges.length);
  let next = 0;
  const worker = async () => {
    while (next < ranges.length) {
      const index = next++;
      bodies[index] = await source.readExact(ranges[index]!.start, ranges[index]!.end);
    }
  };
  await Promise.all(Array.from({ length: Math.min(keyframeRequestConcurrency, ranges.length) }, worker));
  return bodies;
}

/** The filters turning the picture as a player shows it (the raw stream carries no display matrix). */
function rotationFilters(rotation: number): string[] {
  switch (((rotation % 360) + 360) % 360) {
    case 90: return ["transpose=clock"];
    case 180: return ["hflip", "vflip"];
    case 270: return ["transpose=cclock"];
    default: return [];
  }
}

/**
 * One ffmpeg run over the keyframes' Annex B stream on its standard input: the raw h264/hevc demuxer only,
 * no protocol but the pipe, the runner's input bounds (pixels, probe size, streams, allocation, threads).
 * Each keyframe comes out as one raw RGB tile, letterboxed in black like the general path's.
 */
async function decodeKeyframes(
  stream: Buffer, codec: KeyframeCodec, count: number, grid: TileGrid, rotation: number, options: StoryboardFrameOptions,
): Promise<Buffer[]> {
  const { tileWidth: w, tileHeight: h } = grid;
  const filter = [
    ...rotationFilters(rotation),
    "scale=iw*sar:ih", // square pixels, so anamorphic video is not squashed
    `scale=${w}:${h}:force_original_aspect_ratio=decrease:flags=area`,
    `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:black`,
    "setsar=1",
  ].join(",");
  const frameBytes = w * h * 3;
  const result = await runProcess(
    options.ffmpeg,
    [
      "-hide_banner", "-nostdin", "-loglevel", "error",
      "-protocol_whitelist", "pipe", "-format_whitelist", "h264,hevc",
      "-max_pixels", String(options.maxPixels),
      "-probesize", String(probeSizeBytes), "-analyzeduration", String(probeAnalyzeMicroseconds),
      "-max_streams", String(engineMaxStreams),
      ...engineBoundArgs(engineMaxAllocBytes),
      // Every picture fed is a keyframe: show each one even when it is an I picture that is not an IDR.
      "-flags2", "+showall",
      "-f", codec, "-i", "pipe:0",
      "-map", "0:v:0", "-an", "-sn", "-dn",
      "-fps_mode", "passthrough", "-frames:v", String(count),
      "-vf", filter, ...ffmpegOutputBoundArgs(),
      "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1",
    ],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: count * frameBytes, stdin: stream,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  if (result.code !== 0) throw new KeyframeDecodeError("the keyframes could not be decoded on their own", engineDiagnostics(result.stderr));
  if (result.stdout.length !== count * frameBytes) {
    throw new KeyframeDecodeError(`${Math.floor(result.stdout.length / frameBytes)} of ${count} keyframes decoded`);
  }
  return Array.from({ length: count }, (_, i) => result.stdout.subarray(i * frameBytes, (i + 1) * frameBytes));
}
