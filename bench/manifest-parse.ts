/**
 * Parsing cost of hostile playlists, m3u8-parser alone vs behind the linear scan (worker/manifest):
 * `media-runner/node_modules/.bin/tsx bench/manifest-parse.ts`.
 */
/// <reference path="../worker/manifest/vendor-parsers.d.ts" />
import { Parser } from "m3u8-parser";
import { inspectManifest } from "../worker/manifest/inspect-manifest.ts";
import * as manifestLimits from "../worker/manifest/limits.ts";

async function time(label: string, work: () => unknown): Promise<void> {
  const started = performance.now();
  let outcome = "parsed";
  try {
    await work();
  } catch (error) {
    outcome = `refused: ${(error as Error).message.slice(0, 60)}`;
  }
  console.log(`${label}: ${Math.round(performance.now() - started)} ms (${outcome})`);
}

const segments = (n: number) => ["#EXTM3U", "#EXT-X-TARGETDURATION:1", ...Array.from({ length: n }, () => "#EXTINF:1,\na"), "#EXT-X-ENDLIST"].join("\n");
const longLine = `#EXTM3U\n#EXT-X-STREAM-INF:${"a".repeat(64_000)}\nv.m3u8`;
const noFetch = async (): Promise<never> => {
  throw new Error("no nested fetch in this bench");
};
const parseAlone = (text: string) => () => {
  const parser = new Parser();
  parser.push(text);
  parser.end();
};
const guarded = (text: string) => () => inspectManifest("hls", { text, finalUrl: "https://bench.example/m.m3u8" }, noFetch);

await time("m3u8-parser alone, one 64 kB malformed EXT-X-STREAM-INF line", parseAlone(longLine));
await time("guarded, the same line", guarded(longLine));
await time("m3u8-parser alone, 100,000 segments", parseAlone(segments(100_000)));
await time("guarded, 100,000 segments", guarded(segments(100_000)));
await time(`guarded, ${manifestLimits.maxSegments} segments (the cap)`, guarded(segments(manifestLimits.maxSegments)));
