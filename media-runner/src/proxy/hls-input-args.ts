/**
 * ffmpeg input options for an HLS stream served by a ManifestSession. The HLS demuxer opens nested URLs itself,
 * so the whitelist is what keeps it on the proxy: http over tcp (every URL it sees is a loopback proxy URL,
 * written by the session from its model) and `crypto`, the AES-128 wrapper around those same http URLs. `file`,
 * `concat`, `data`, `pipe` and every other protocol are refused by ffmpeg itself. The engine's http_proxy
 * (run-process.ts) is the second wall. The resource bounds are those of every other engine run.
 */
import { engineInputBoundArgs } from "../media/engine-args.ts";

export const hlsProtocolWhitelist = "http,tcp,crypto";

/** The HLS demuxer and the segment formats it may open (MPEG-TS, fMP4, packed audio). */
export const hlsDemuxers = ["hls", "mpegts", "mov", "mp4", "m4a", "aac", "mp3", "ac3", "eac3"] as const;

export function hlsInputArgs(maxPixels: number): string[] {
  return [
    "-protocol_whitelist", hlsProtocolWhitelist,
    "-f", "hls",
    "-format_whitelist", hlsDemuxers.join(","),
    ...engineInputBoundArgs(maxPixels),
  ];
}
