#!/usr/bin/env node
// `npm run samples`: serves a few generated media files on loopback so the README's examples work as printed.
// Files are made with ffmpeg on first run into .samples/ (gitignored) and served with Range support on
// http://127.0.0.1:${SAMPLES_PORT:-8790}/. `npm start` allow-lists exactly this origin in local mode.
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = process.env.SAMPLES_DIR ?? join(root, ".samples");
const port = Number(process.env.SAMPLES_PORT ?? 8790);
const host = "127.0.0.1";

const lavfi = (source) => ["-f", "lavfi", "-i", source];
const testVideo = "testsrc2=size=640x360:rate=25:duration=5";
const tone = "sine=frequency=440:sample_rate=48000:duration=5";

/** Name, content type and the ffmpeg arguments that make it (deterministic test patterns, no download). */
export const samples = [
  { name: "image.jpg", type: "image/jpeg", args: [...lavfi("testsrc2=size=1280x720:rate=1"), "-frames:v", "1", "-q:v", "3"] },
  {
    name: "image.png",
    type: "image/png",
    args: [...lavfi("testsrc2=size=640x360:rate=1"), "-vf", "format=rgba,colorchannelmixer=aa=0.6", "-frames:v", "1"],
  },
  {
    name: "video.mp4",
    type: "video/mp4",
    args: [...lavfi(testVideo), ...lavfi(tone), "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast",
      "-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart", "-shortest"],
  },
  {
    name: "video.webm",
    type: "video/webm",
    args: [...lavfi(testVideo), ...lavfi(tone), "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "600k",
      "-c:a", "libopus", "-b:a", "64k", "-shortest"],
  },
  { name: "audio.mp3", type: "audio/mpeg", args: [...lavfi(tone), "-c:a", "libmp3lame", "-b:a", "128k"] },
  { name: "audio.flac", type: "audio/flac", args: [...lavfi(tone), "-c:a", "flac"] },
];

function generate() {
  mkdirSync(dir, { recursive: true });
  for (const sample of samples) {
    const target = join(dir, sample.name);
    if (existsSync(target)) continue;
    // Written under a temporary name and renamed, so an interrupted run never leaves a half file behind.
    const partial = join(dir, `.partial-${sample.name}`);
    const run = spawnSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...sample.args, "-f", formatOf(sample.name), partial], {
      encoding: "utf8",
    });
    if (run.error || run.status !== 0) {
      throw new Error(`ffmpeg could not make ${sample.name} (Debian: apt-get install ffmpeg): ${run.error?.message ?? run.stderr}`);
    }
    renameSync(partial, target);
  }
}

function formatOf(name) {
  return { jpg: "image2", png: "image2", mp4: "mp4", webm: "webm", mp3: "mp3", flac: "flac" }[name.split(".").pop()];
}

/** Parses one `bytes=` range (RFC 9110 14.1.2) against a size; null when absent, "bad" when unsatisfiable. */
export function parseRange(header, size) {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return "bad";
  let start;
  let end;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "bad";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start > end || start >= size ? "bad" : { start, end };
}

function serve() {
  const byName = new Map(samples.map((s) => [`/${s.name}`, s]));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://samples").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(samples.map((s) => `http://${host}:${port}/${s.name}\n`).join(""));
      return;
    }
    const sample = byName.get(path);
    if (!sample) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const file = join(dir, sample.name);
    const size = statSync(file).size;
    const headers = { "content-type": sample.type, "accept-ranges": "bytes", "cache-control": "no-cache" };
    const range = parseRange(req.headers.range, size);
    if (range === "bad") {
      res.writeHead(416, { ...headers, "content-range": `bytes */${size}` }).end();
      return;
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    res.writeHead(range ? 206 : 200, {
      ...headers,
      "content-length": String(end - start + 1),
      ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
    });
    if (req.method === "HEAD") return res.end();
    createReadStream(file, { start, end }).pipe(res);
  });
  server.listen(port, host, () => {
    process.stdout.write(`samples on http://${host}:${port}/ : ${samples.map((s) => s.name).join(", ")}\n`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  generate();
  serve();
}
