/**
 * An HLS origin that answers by User-Agent (cloaking): the Worker is shown a small VOD media
 * playlist, the media runner a master of many variants, each behind a chain of redirects. Every URL carries
 * the caller's query (the test's nonce), so the origin's log attributes each request to one inspection.
 *
 *   /cloaked-hls/<variants>/<hops>/index.m3u8   the entry playlist (0 variants: no cloaking)
 *   /cloaked-hls/variant/<i>.m3u8               one variant: a media playlist naming the real first segment
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const runnerAgent = "media-inspect-runner";

function mediaPlaylist(search: string): string {
  return ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXTINF:2.0,",
    `/media/hls/v1/seg0.ts${search}`, "#EXT-X-ENDLIST", ""].join("\n");
}

function masterPlaylist(variants: number, hops: number, search: string): string {
  const lines = ["#EXTM3U"];
  for (let i = 0; i < variants; i++) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${100_000 + i},RESOLUTION=240x136`, `${hops > 0 ? `/redirect/${hops}` : ""}/cloaked-hls/variant/${i}.m3u8${search}`);
  }
  return lines.join("\n") + "\n";
}

/** Answers a /cloaked-hls/ request; `parts` are the path's segments after "cloaked-hls". */
export function serveCloakedHls(req: IncomingMessage, res: ServerResponse, parts: string[], search: string, count: (chunk: string) => void): void {
  const toRunner = (req.headers["user-agent"] ?? "").includes(runnerAgent);
  const variants = Math.min(Number(parts[0]) || 0, 5_000);
  const hops = Math.min(Number(parts[1]) || 0, 5);
  const body = parts[0] === "variant" || !toRunner || variants === 0 ? mediaPlaylist(search) : masterPlaylist(variants, hops, search);
  res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl", "content-length": Buffer.byteLength(body) });
  count(body);
  res.end(body);
}
