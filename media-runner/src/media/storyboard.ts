/**
 * A storyboard sprite: one tile per interval, each the frame at its time (what `ffmpeg -ss t -i file` shows),
 * composed into one WebP by sharp.
 *
 * MP4/MOV with H.264 or HEVC (the common case), on an origin with Range support: the moov's sample tables say
 * where each sample is (mp4-tile-frames.ts); for each tile, the samples from the keyframe at or before its time
 * up to the frame at it (tiles sharing a keyframe share one run, so one keyframe in a whole clip is decoded
 * once, forwards), and only those samples' bytes are read, in exact Range requests (near ones coalesced, their
 * count bounded by what is left of the inspection's request budget). Where keyframes fall on the tiles' times
 * that is the keyframes alone. Past maxForwardFrames / maxForwardDecodePixels the tiles show the nearest
 * keyframes instead, and say so (frameTimes; the WebVTT cues then start at those frames). The moov itself is
 * already in the job's block cache (ffprobe read it). The samples, as an Annex B stream with their parameter
 * sets, are decoded by one ffmpeg run reading its standard input (no network: the bytes came through the job's
 * checked RemoteSource), under the same engine bounds as every other run. Measured on a 30 MB 720p faststart MP4
 * (bench/storyboard.ts): 26.5% of the file and 123 requests with the per-tile seeks below, about the keyframes'
 * own bytes with this path.
 *
 * Anything else (WebM/MKV, AVI, other codecs, fragmented MP4, no Range support, or sample tables this reader
 * refuses): one ffmpeg run per tile seeking exactly to its time with `-ss` before `-i` (frame.ts) through the
 * Range proxy, so the demuxer reads the index, then the keyframe before the time and the packets up to it.
 * One ffmpeg reading the whole file through a keyframe `select` filter would pull the entire file
 * (test/runner/storyboard-waveform.test.ts measures the three).
 */
import sharp from "sharp";
import { storyboardEndMarginSeconds, storyboardPlan, storyboardTileHeight, storyboardTileWidth } from "../../../shared/media/storyboard-plan.ts";
import type { RunnerStoryboard } from "../../../shared/shapes/runner.ts";
import { RunnerError } from "../errors.ts";
import type { RemoteSource } from "../fetch/remote-source.ts";
import { engineBoundArgs, engineDiagnostics, ffmpegOutputBoundArgs } from "./engine-args.ts";
import { extractFrame, type FrameOptions } from "./frame.ts";
import { readMoov } from "./mp4-source.ts";
import { engineMaxAllocBytes, engineMaxStreams, probeAnalyzeMicroseconds, probeSizeBytes } from "./engine-limits.ts";
import { Mp4IndexError, selectKeyframes, type KeyframeCodec } from "./mp4-keyframes.ts";
import { annexBAccessUnit, parameterSets } from "./mp4-annexb.ts";
import { selectTileFrames } from "./mp4-tile-frames.ts";
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
/**
 * Where keyframes are sparser than the tiles, the frames after them are decoded up to each tile's time, within
 * this many pictures and this many decoded pixels (about 1,500 frames of 720p, 240 of 4K) per storyboard; past
 * either, the tiles show keyframes and the track's cues start at the keyframes' own times.
 */
export const maxForwardFrames = 3000;
export const maxForwardDecodePixels = 1_500_000_000;

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
  /**
   * Origin bytes decoding forward may read (what the budget leaves, less a reserve): past it the tiles show
   * keyframes instead of failing the stage on the budget.
   */
  maxForwardBytes?: number;
}

export interface StoryboardResult {
  storyboard: RunnerStoryboard;
  /**
   * frames-by-range: the sample tables' path, each tile the frame at its time (decoded forward from its keyframe);
   * keyframes-by-range: the same path showing keyframes (forward decoding would pass its bounds);
   * seek-per-tile: one exact ffmpeg seek per tile through the proxy.
   */
  method: "frames-by-range" | "keyframes-by-range" | "seek-per-tile";
  /** Why the sample tables' path was not taken, when it was not. */
  fallback?: string;
}

/** Frame times of the plan: tile i shows the frame at i x interval (clamped inside the file). */
export function tileTimes(durationSeconds: number, interval: number, tiles: number): number[] {
  const last = Math.max(0, durationSeconds - storyboardEndMarginSeconds);
  return Array.from({ length: tiles }, (_, i) => Math.min(i * interval, last));
}

/** Seconds to the millisecond, rounded down: a cue starting there still starts at or before its frame. */
function floorMs(seconds: number): number {
  return Math.max(0, Math.floor(seconds * 1000 + 1e-6) / 1000);
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
  // What each tile shows: the frame at its time unless the sample tables' path says otherwise.
  let frameTimes = times;
  let fallback: string | undefined;
  let reading: "frames" | "keyframes" = "frames";
  if (keyframes) {
    try {
      const read = await tilesFromKeyframes(keyframes, times, grid, video, options);
      if (!read) fallback = "not an MP4/MOV H.264 or HEVC track on an origin with Range support";
      else ({ tiles, frameTimes, reading } = read);
    } catch (error) {
      // Only what this path itself refused falls back; the origin, the budget and the deadline fail the stage.
      if (!(error instanceof Mp4IndexError || error instanceof KeyframeDecodeError)) throw error;
      fallback = error.message;
    }
  }
  const method = tiles ? (reading === "frames" ? "frames-by-range" : "keyframes-by-range") : "seek-per-tile";
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
    storyboard: {
      base64: sprite.toString("base64"), contentType: "image/webp", tiles: plan.tiles, columns: plan.columns, tileWidth, tileHeight, interval: plan.interval,
      frameTimes: frameTimes.map(floorMs), duration: Math.round(video.durationSeconds * 1000) / 1000,
    },
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
  // exact: ffmpeg decodes from the keyframe before the time up to the frame at it (what `-ss t -i` shows).
  const frameOptions: FrameOptions = { ...options, mode: "exact", maxPx: Math.max(tileWidth, tileHeight) };
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

interface TablesRead {
  tiles: Array<Buffer | undefined>;
  frameTimes: number[];
  /** frames: each tile is the frame at its time; keyframes: the keyframe nearest it (forward decoding was over its bounds). */
  reading: "frames" | "keyframes";
}

/** A sample to feed the decoder: where it is, and whether its parameter sets go first. */
interface FedSample {
  offset: number;
  size: number;
  sync: boolean;
}

/** The sample tables' path; undefined when it does not apply to this file. */
async function tilesFromKeyframes(
  reading: KeyframeReading, times: number[], grid: TileGrid, video: StoryboardInput, options: StoryboardFrameOptions,
): Promise<TablesRead | undefined> {
  const { source } = reading;
  if (!source.rangeSupported || source.size === undefined || !/(^|,)(mov|mp4)(,|$)/.test(reading.formatName ?? "")) return undefined;
  const moov = await readMoov(source, source.size);
  if (!moov) return undefined;
  const pixels = Math.max(1, video.width * video.height);
  const frameCap = Math.max(1, Math.min(maxForwardFrames, Math.floor(maxForwardDecodePixels / pixels)));
  const frames = selectTileFrames(moov, times, source.size, frameCap);
  if (!frames) return undefined;
  let fed: FedSample[];
  let output: number[];
  let frameTimes: number[];
  let codec: KeyframeCodec;
  let config: Buffer;
  let kind: TablesRead["reading"];
  const forwardCap = Math.min(maxKeyframeBytes, reading.maxForwardBytes ?? Infinity);
  if (frames !== "too-many" && frames.samples.reduce((sum, k) => sum + k.size, 0) <= forwardCap) {
    ({ codec, config, output, frameTimes } = frames);
    fed = frames.samples;
    kind = "frames";
  } else {
    const selection = selectKeyframes(moov, times, source.size);
    if (!selection) return undefined;
    ({ codec, config } = selection);
    fed = selection.keyframes.map((k) => ({ offset: k.offset, size: k.size, sync: true }));
    output = selection.pick;
    frameTimes = selection.pick.map((i) => selection.keyframes[i]!.time);
    kind = "keyframes";
  }
  const total = fed.reduce((sum, k) => sum + k.size, 0);
  if (total > maxKeyframeBytes) throw new Mp4IndexError("the keyframes are too large to hold");
  const ranges = planRanges(fed.map((k) => ({ start: k.offset, end: k.offset + k.size - 1 })), coalesceGapBytes, reading.maxRequests);
  if (ranges.reduce((sum, r) => sum + r.end - r.start + 1, 0) > maxKeyframeBytes) throw new Mp4IndexError("the coalesced keyframe ranges are too large to hold");
  const bodies = await readRanges(source, ranges);
  const params = parameterSets(codec, config);
  const none = { nalLengthSize: params.nalLengthSize, nals: [] };
  const stream = Buffer.concat(fed.flatMap((k) => {
    const r = ranges.findIndex((range) => range.start <= k.offset && k.offset + k.size - 1 <= range.end);
    const body = bodies[r]!;
    return annexBAccessUnit(codec, k.sync ? params : none, body.subarray(k.offset - ranges[r]!.start, k.offset - ranges[r]!.start + k.size));
  }));
  const wanted = [...new Set(output)].sort((a, b) => a - b);
  const pictures = await decodePictures(stream, codec, fed.length, wanted, grid, video.rotation ?? 0, options);
  return { tiles: output.map((i) => pictures.get(i)), frameTimes, reading: kind };
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
 * One ffmpeg run over the samples' Annex B stream on its standard input: the raw h264/hevc demuxer only, no
 * protocol but the pipe, the runner's input bounds (pixels, probe size, streams, allocation, threads). Of the
 * `count` pictures decoded, those numbered in `wanted` (output order) come out, each as one raw RGB tile,
 * letterboxed in black like the general path's. The last picture comes out too, as a check: fewer pictures
 * than samples fed (one did not decode) would shift the numbering, and the general path takes over instead.
 */
async function decodePictures(
  stream: Buffer, codec: KeyframeCodec, count: number, wanted: number[], grid: TileGrid, rotation: number, options: StoryboardFrameOptions,
): Promise<Map<number, Buffer>> {
  const { tileWidth: w, tileHeight: h } = grid;
  const chosen = wanted.at(-1) === count - 1 ? wanted : [...wanted, count - 1];
  const filter = [
    `select=${chosen.map((n) => `eq(n\\,${n})`).join("+")}`,
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
      // Every run starts at a keyframe: show each picture even after an I picture that is not an IDR.
      "-flags2", "+showall",
      "-f", codec, "-i", "pipe:0",
      "-map", "0:v:0", "-an", "-sn", "-dn",
      "-fps_mode", "passthrough", "-frames:v", String(chosen.length),
      "-vf", filter, ...ffmpegOutputBoundArgs(),
      "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1",
    ],
    {
      timeoutMs: options.timeoutMs, maxStdoutBytes: chosen.length * frameBytes, stdin: stream,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  if (result.code !== 0) throw new KeyframeDecodeError("the keyframes could not be decoded on their own", engineDiagnostics(result.stderr));
  if (result.stdout.length !== chosen.length * frameBytes) {
    throw new KeyframeDecodeError(`${Math.floor(result.stdout.length / frameBytes)} of ${chosen.length} pictures decoded`);
  }
  return new Map(chosen.map((n, i) => [n, result.stdout.subarray(i * frameBytes, (i + 1) * frameBytes)]));
}
