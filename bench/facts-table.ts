// what the service says about each class of file it used to get wrong, next to what ffprobe says,
// and the bytes a `profile=fast` inspection pulled from the origin (the edge alone, no runner).
//
//   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npx tsx bench/facts-table.ts'
//
// Makes the fixtures (testkit/media-fixtures.ts), computes ffprobe's reference (testkit/ffprobe-reference.ts),
// starts the loopback origin that counts every byte and the real Worker under `wrangler dev` (local mode, state
// in a temporary folder), inspects each file once with profile=fast, prints a Markdown table, stops wrangler.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { freePort } from "../testkit/start-service.ts";
import { startWorker, stopWorker } from "./support/wrangler-dev.ts";
import { ensureMediaFixtures, factFixtures } from "../testkit/media-fixtures.ts";
import { ffprobeReference, type FfprobeReference } from "../testkit/ffprobe-reference.ts";

const root = join(import.meta.dirname, "..");
const settleMs = 300;

/** The classes of files the service used to get wrong. */
const classes: [string, string][] = [
  ["Opus in WebM", "opus.webm"], ["FLAC in MKA", "flac.mka"], ["Vorbis in Ogg + cover art", "vorbis-cover.ogg"],
  ["WMA (ASF)", "audio.wma"], ["AAC-only MP4", "aac-only.mp4"], ["MP4 rotated 90°", "rotated-90.mp4"],
  ["MOV rotated 90°", "rotated-90.mov"], ["JPEG EXIF orientation 6", "jpeg-orientation-6.jpg"],
  ["Animated GIF", "animated.gif"], ["Animated WebP", "animated.webp"], ["BMP", "image.bmp"], ["ICO", "image.ico"],
  ["JPEG XL", "image.jxl"], ["MP4 truncated at 30 %", "truncated.mp4"], ["WebM without Duration/Cues", "recorder.webm"],
  ["VBR MP3 without Xing", "vbr-no-xing.mp3"],
];

const fmt = (n: number | undefined, digits = 3) => (n === undefined ? "?" : String(Math.round(n * 10 ** digits) / 10 ** digits));

/** One line of facts in the same words for both sides. */
function serviceSays(data: any): string {
  const type = data.semantic?.semanticType ?? data.semantic?.kind;
  const m = data.metadata?.[type] ?? {};
  const parts = [type, data.identity?.mime];
  if (m.duration) parts.push(`${fmt(m.duration.seconds)} s`);
  if (m.sampleRate) parts.push(`${m.sampleRate} Hz`);
  if (m.channels) parts.push(`${m.channels} ch`);
  if (m.width) parts.push(`${m.width}x${m.height}`);
  if (m.rotation) parts.push(`rot ${m.rotation}`);
  if (m.orientation) parts.push(`orient ${m.orientation}`);
  if (m.frames) parts.push(`${m.frames} fr`);
  if (m.codec) parts.push(m.codec);
  return parts.join(", ");
}

function ffprobeSays(ref: FfprobeReference): string {
  const parts = [ref.formatName];
  if (ref.duration) parts.push(`${fmt(ref.duration)} s`);
  if (ref.audio) parts.push(`${ref.audio.sampleRate} Hz`, `${ref.audio.channels} ch`);
  if (ref.video) parts.push(`${ref.video.width}x${ref.video.height}`, ...(ref.video.rotation ? [`rot ${ref.video.rotation}`] : []),
    `${ref.video.frames} pkts`, ref.video.codec);
  else if (ref.audio) parts.push(ref.audio.codec);
  return parts.join(", ");
}

async function main() {
  const mediaDir = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
  const imagesDir = join(root, "test", "fixtures", "images");
  const origin = await startLoopbackOrigin([mediaDir, imagesDir]);
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const persistDir = mkdtempSync(join(tmpdir(), "facts-table-"));
  let worker: ChildProcess | undefined;
  const rows: string[][] = [];
  try {
    worker = await startWorker(port, { SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }, persistDir);
    for (const [label, file] of classes) {
      const dir = file in factFixtures ? mediaDir : imagesDir;
      const ref = await ffprobeReference(dir, file);
      const nonce = crypto.randomUUID().slice(0, 8);
      const url = `${origin.url}/media/${file}?n=${nonce}`;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/inspect?profile=fast`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url }),
      });
      const body = (await response.json()) as { data?: unknown };
      await new Promise((r) => setTimeout(r, settleMs));
      const pulled = origin.stats.requests.filter((r) => r.path.includes(`n=${nonce}`)).reduce((sum, r) => sum + r.bytes, 0);
      const size = statSync(join(dir, file)).size;
      rows.push([label, serviceSays(body.data ?? {}), ffprobeSays(ref), `${pulled} of ${size}`]);
    }
  } finally {
    if (worker) await stopWorker(worker);
    await origin.close();
    rmSync(persistDir, { recursive: true, force: true });
  }
  console.log("| class | service (profile=fast, edge only) | ffprobe | bytes pulled |");
  console.log("|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

await main();
