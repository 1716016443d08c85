// Times the edge image pipeline inside workerd (Miniflare, loopback only) on a generated JPEG.
//   node bench/edge-image-pipeline.mjs [--runs 7] [--size 4000x3000] [--max-decode-pixels N]
// Prints median milliseconds per step (header, decode, resize, webpEncode, blurhash, palette, total),
// the request round trip, and photon's wasm memory after the first run in a fresh isolate (its peak).
// --max-decode-pixels defaults to the image's own pixel count so the image is decoded even when it is
// above the Worker's default bound; the bench reports what the default would have said.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = join(root, ".tmp", "bench-edge-image");
const { values } = parseArgs({
  options: { runs: { type: "string", default: "7" }, size: { type: "string", default: "4000x3000" }, "max-decode-pixels": { type: "string" } },
});
const runs = Number(values.runs);
const [width, height] = values.size.split("x").map(Number);
mkdirSync(work, { recursive: true });

// A photo-like JPEG: moving test pattern plus film grain, so the entropy coder has real work to do.
const jpegPath = join(work, `bench-${width}x${height}.jpg`);
if (!existsSync(jpegPath)) {
  execFileSync("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", `testsrc2=size=${width}x${height}:rate=1,noise=alls=20:allf=t`,
    "-frames:v", "1", "-q:v", "3", jpegPath]);
}
const jpeg = readFileSync(jpegPath);

const outdir = join(work, "worker");
await build({
  entryPoints: [join(root, "bench", "edge-image-worker.ts")],
  outdir,
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  external: ["node:*", "cloudflare:*"],
  loader: { ".wasm": "copy" },
  logLevel: "error",
});

const mf = new Miniflare({
  modules: true,
  scriptPath: join(outdir, "edge-image-worker.js"),
  modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
  compatibilityDate: "2026-04-26",
  compatibilityFlags: ["nodejs_compat"],
  host: "127.0.0.1",
});

try {
  const pixels = width * height;
  const maxDecodePixels = Number(values["max-decode-pixels"] ?? pixels);
  const samples = [];
  let first;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const res = await mf.dispatchFetch(`http://bench.local/?maxDecodePixels=${maxDecodePixels}`, {
      method: "POST", body: jpeg, headers: { "content-type": "image/jpeg" },
    });
    const body = await res.json();
    const roundTrip = performance.now() - t0;
    if (!body.ok) throw new Error(`pipeline refused: ${body.reason}: ${body.detail}`);
    first ??= body;
    samples.push({ ...body.timingsMs, roundTrip });
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const mib = (n) => (n / 2 ** 20).toFixed(1);
  const defaultBound = first.defaultMaxDecodePixels;
  console.log(`edge image pipeline in workerd (Miniflare), ${width}x${height} JPEG (${(pixels / 1e6).toFixed(1)} MP, ${mib(jpeg.length)} MiB), ${runs} runs`);
  console.log("step         median ms");
  for (const step of ["header", "decode", "resize", "webpEncode", "blurhash", "palette", "total", "roundTrip"]) {
    console.log(`${step.padEnd(12)} ${median(samples.map((s) => s[step])).toFixed(1).padStart(9)}`);
  }
  console.log(`thumbnail ${first.result.thumbnail.width}x${first.result.thumbnail.height}, ${first.result.thumbnail.bytes} bytes WebP; ` +
    `placeholder ${first.result.placeholder}; dominant ${first.result.dominantColor}`);
  console.log(`photon wasm memory after the first run in a fresh isolate: ${mib(first.wasmMemoryBytes)} MiB ` +
    `(${(first.wasmMemoryBytes / pixels).toFixed(1)} bytes/pixel)`);
  console.log(`default maxDecodePixels ${defaultBound} would ${pixels > defaultBound ? "refuse (too-large, media runner)" : "accept"} this image`);
} finally {
  await mf.dispose();
}
