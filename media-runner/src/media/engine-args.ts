import { engineMaxAllocBytes, engineMaxStreams, engineThreads, probeAnalyzeMicroseconds, probeSizeBytes } from "./engine-limits.ts";

/**
 * Input options shared by every ffprobe/ffmpeg run on a proxied URL. The engines may only speak HTTP (to
 * the loopback proxy) and only use demuxers that read one self-contained stream: playlist and reference
 * formats (HLS, DASH, concat, image sequences, MOV external references) would make the engine open other
 * URLs or local files itself, around the proxy.
 */
export const allowedDemuxers = [
  "mov", "mp4", "m4a", "3gp", "matroska", "webm", "avi", "flv", "asf", "mpegts", "mpeg", "m4v", "h264", "hevc",
  "ivf", "mp3", "aac", "ac3", "eac3", "flac", "ogg", "wav", "w64", "aiff", "caf", "au", "amr", "wv", "ape",
  "dts", "truehd", "mjpeg", "gif", "png_pipe", "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe", "avif",
  // Single-picture image demuxers of Debian's ffmpeg 5.1: JPEG 2000 (JP2 box and raw codestream),
  // netpbm, Photoshop and DirectDraw Surface.
  "j2k_pipe", "pbm_pipe", "pgm_pipe", "ppm_pipe", "pam_pipe", "psd_pipe", "dds_pipe",
  // Autodesk FLI/FLC animations (one self-contained file of palette frames).
  "flic",
] as const;

/** Receive buffer of the engines' sockets to the proxy. */
export const engineSocketBufferBytes = 128 * 1024;

export function safeInputArgs(maxPixels: number): string[] {
  return [
    "-protocol_whitelist", "http,tcp",
    "-format_whitelist", allowedDemuxers.join(","),
    ...engineReconnectArgs,
    ...engineInputBoundArgs(maxPixels),
  ];
}

/**
 * The bounds of every engine input read over HTTP, plain sources and HLS/DASH previews alike (hls-input-args.ts
 * adds its own whitelists to these, never a second list).
 */
export function engineInputBoundArgs(maxPixels: number): string[] {
  return [
    // A small, fixed socket buffer: the proxy can only push what the engine is about to read, so a
    // connection dropped after a seek has not pulled megabytes from the origin into kernel buffers.
    "-recv_buffer_size", String(engineSocketBufferBytes),
    // A decoder refuses frames larger than this (a video-sized decompression bomb).
    "-max_pixels", String(maxPixels),
    // What a hostile container can make the demuxer read, create and allocate (see engine-limits.ts).
    "-probesize", String(probeSizeBytes),
    "-analyzeduration", String(probeAnalyzeMicroseconds),
    "-max_streams", String(engineMaxStreams),
    ...engineBoundArgs(engineMaxAllocBytes),
  ];
}

/**
 * The proxy answers open-ended ranges in short pieces (range-proxy.ts, paced sources): at the end of one the
 * engine's http client asks again from there at once. One immediate retry per read (delay max 0), so a
 * connection cut for a real failure fails the read instead of retrying for minutes.
 */
export const engineReconnectArgs: readonly string[] = ["-reconnect", "1", "-reconnect_delay_max", "0"];

/** An engine's stderr without the lines each paced answer's end makes ffmpeg's http client log. */
export function engineDiagnostics(stderr: string): string {
  return stderr.split("\n").filter((line) => !line.includes("Stream ends prematurely")).join("\n").trim();
}

/**
 * ffmpeg's output side (ffprobe refuses these): filter-graph and encoder threads, which otherwise default to
 * one per visible core; on a many-core host each thread's stack and buffers would count against the
 * address-space limit.
 */
export function ffmpegOutputBoundArgs(): string[] {
  return ["-filter_threads", String(engineThreads), "-threads", String(engineThreads)];
}

/** Per-allocation cap (a global option) and decoder threads, for every engine run. */
export function engineBoundArgs(maxAllocBytes: number): string[] {
  return ["-max_alloc", String(maxAllocBytes), "-threads", String(engineThreads)];
}
