// Bytes a `profile=fast` inspection pulls from the origin, per media fixture, with and without Range support.
//
//   npx tsx bench/probe-bytes.ts          (BENCH_PORT picks the Worker's port; default: a free one)
//
// Starts the loopback test origin (testkit/loopback-origin.ts, which counts every byte it writes) and the
// real Worker under `wrangler dev` (local mode, state in a temporary folder, the origin's port allow-listed with
// SSRF_ALLOWLIST), inspects each file in test/.fixtures/media, prints a table and stops wrangler with SIGTERM.
// Everything stays on 127.0.0.1; run it in a loopback-only namespace like the tests:
//   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && npx tsx bench/probe-bytes.ts'
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoopbackOrigin } from "../testkit/loopback-origin.ts";
import { freePort } from "../testkit/start-service.ts";
import { startWorker, stopWorker } from "./support/wrangler-dev.ts";
import { ensureMediaFixtures, mediaFixtures } from "../testkit/media-fixtures.ts";
import { ensureHeadFixtures, headFixtureFiles } from "../testkit/head-fixtures.ts";

const root = join(import.meta.dirname, "..");
/** Lets an origin that ignores Range notice the Worker's cancel before its byte count is read. */
const settleMs = 300;

interface Row {
  file: string;
  size: number;
  status: number;
  requests: number;
  ranges: string;
  pulled: number;
}

async function main() {
  const mediaDir = ensureMediaFixtures(join(root, "test", ".fixtures", "media"));
  // Files whose facts lie past the 16 KiB head (a big EXIF, a late moov or Tracks, cover art, an Ogg's last page).
  ensureHeadFixtures(mediaDir, join(root, "test", "fixtures", "images"));
  const origin = await startLoopbackOrigin([mediaDir]);
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const persistDir = mkdtempSync(join(tmpdir(), "probe-bytes-"));
  let worker: ChildProcess | undefined;
  try {
    worker = await startWorker(port, { SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` }, persistDir);
    const results: Record<"ranged" | "plain", Row[]> = { ranged: [], plain: [] };
    for (const file of [...Object.keys(mediaFixtures), ...headFixtureFiles]) {
      for (const mode of ["ranged", "plain"] as const) {
        const nonce = crypto.randomUUID().slice(0, 8);
        const url = `${origin.url}/media/${file}?n=${nonce}${mode === "plain" ? "&norange=1" : ""}`;
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/inspect?profile=fast`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url }),
        });
        await response.arrayBuffer();
        await new Promise((r) => setTimeout(r, settleMs));
        const requests = origin.stats.requests.filter((r) => r.path.includes(`n=${nonce}`));
        results[mode].push({
          file,
          size: statSync(join(mediaDir, file)).size,
          status: response.status,
          requests: requests.length,
          ranges: requests.map((r) => r.range?.replace("bytes=", "") ?? "full").join(" "),
          pulled: requests.reduce((sum, r) => sum + r.bytes, 0),
        });
      }
    }
    print("With Range support (206): bytes the origin sent", results.ranged);
    print("Without Range support (200, ?norange=1): bytes the origin wrote before the Worker cancelled (includes socket buffers)", results.plain);
  } finally {
    if (worker) await stopWorker(worker);
    await origin.close();
    rmSync(persistDir, { recursive: true, force: true });
  }
}

function print(title: string, rows: Row[]) {
  const header = ["file", "size (B)", "status", "requests", "ranges", "pulled (B)", "ratio"];
  const table = rows.map((r) => [r.file, String(r.size), String(r.status), String(r.requests), r.ranges, String(r.pulled),
    `${((r.pulled / r.size) * 100).toFixed(1)} %`]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of table) console.log(line(row));
}

await main();
