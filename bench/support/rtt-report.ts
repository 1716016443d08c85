/**
 * `npm run bench -- --rtt`: the table of one run through the latency proxy, per file and tool across the
 * round-trip times, and the issue's round-trip targets checked against it.
 */
import type { BenchFile } from "./media.ts";
import type { LatencyStats } from "./latency-proxy.ts";
import { kib, median } from "./stats.ts";

/** The round-trip times measured when `--rtt` is given without a list. */
export const defaultRtts = "0,20,80";

/** What one run sent through the proxy, up to the answer. */
export interface RttSample extends LatencyStats {
  rttMs: number;
  /** Requests and body bytes at the origin (its own count, by the run's tag). */
  requests: number;
  bytes: number;
}

interface RttRow {
  file: string;
  tool: string;
  rttMs?: number;
  medianMs: number;
  samples: { rtt?: RttSample }[];
}

/** `--rtt` alone (last, or followed by another option) means the default list. */
export function rttArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === "--rtt" && (i + 1 >= argv.length || argv[i + 1]!.startsWith("--"))) out.push(defaultRtts);
  }
  return out;
}

/** Who opened a connection, from the user agent of its first request. */
export function connectionOwner(agent: string): "edge" | "runner" | "by hand" {
  if (agent.startsWith("media-inspect-runner")) return "runner";
  if (agent.startsWith("media-inspect/")) return "edge";
  return "by hand";
}

function owners(s: RttSample): Record<"edge" | "runner" | "by hand", number> {
  const out = { edge: 0, runner: 0, "by hand": 0 };
  for (const [agent, n] of Object.entries(s.connectionsByAgent)) out[connectionOwner(agent)] += n;
  return out;
}

const med = (row: RttRow, pick: (s: RttSample) => number) => median(row.samples.flatMap((s) => (s.rtt ? [pick(s.rtt)] : [])));

/** The file's physical limit in sequential round trips for `fast` (the first read) and `full` (plus the frame). */
export function limitOf(file: BenchFile, tool: string): number | undefined {
  if (tool === "service fast") return file.roundTrips.fast;
  if (tool === "service full") return file.roundTrips.full;
  return undefined;
}

export function rttReport(rows: RttRow[], files: BenchFile[], rtts: number[]): string[] {
  const top = Math.max(...rtts);
  const out = [
    `round trips, not bytes: medians; time in ms at each RTT; at RTT ${top}: origin requests / sequential round trips / connections (edge+runner, or by hand) / bytes`,
    `| file | tool | ${rtts.map((r) => `RTT ${r}`).join(" | ")} | req / RT / conn / bytes at RTT ${top} | limit (RT) |`,
    `|---|---|${rtts.map(() => "---|").join("")}---|---|`,
  ];
  const targets = ["targets:"];
  for (const file of files) {
    const tools = [...new Set(rows.filter((r) => r.file === file.name).map((r) => r.tool))];
    for (const tool of tools) {
      const at = (rtt: number) => rows.find((r) => r.file === file.name && r.tool === tool && r.rttMs === rtt && r.samples.length > 0);
      const times = rtts.map((rtt) => at(rtt)?.medianMs.toFixed(0) ?? "failed");
      const last = at(top);
      const detail = last
        ? `${med(last, (s) => s.requests)} / ${med(last, (s) => s.roundTrips)} / ${connections(last)} / ${kib(med(last, (s) => s.bytes))}`
        : "-";
      const limit = limitOf(file, tool);
      out.push(`| ${file.name} | ${tool} | ${times.join(" | ")} | ${detail} | ${limit ?? ""} |`);
      if (tool === "service fast" && last && limit !== undefined) {
        const rt = med(last, (s) => s.roundTrips);
        targets.push(`  fast at RTT ${top} within limit + 1 (${limit + 1}), ${file.name}: ${rt} ${rt <= limit + 1 ? "MET" : "missed"}`);
      }
      if (tool.startsWith("service")) {
        // Every sample, not the median: one inspection over one connection per origin at the edge, always.
        const most = Math.max(...rtts.flatMap((r) => at(r)?.samples.map((s) => (s.rtt ? owners(s.rtt).edge : 0)) ?? []));
        targets.push(`  ≤ 1 edge connection per inspection, ${tool}, ${file.name}: most ${most} ${most <= 1 ? "MET" : "missed"}`);
      }
    }
    const full = (rtt: number) => rows.find((r) => r.file === file.name && r.tool === "service full" && r.rttMs === rtt && r.samples.length > 0);
    const hand = (rtt: number) => rows.find((r) => r.file === file.name && r.tool === (file.kind === "audio" ? "ffprobe" : "ffprobe+ffmpeg") && r.rttMs === rtt && r.samples.length > 0);
    const ratios = rtts.map((rtt) => {
      const f = full(rtt);
      const h = hand(rtt);
      return f && h ? `${(f.medianMs / h.medianMs).toFixed(2)}x at ${rtt}` : `n/a at ${rtt}`;
    });
    targets.push(`  full ÷ ${file.kind === "audio" ? "ffprobe" : "ffprobe+ffmpeg"}, ${file.name}: ${ratios.join(", ")}`);
  }
  return [...out, "", ...targets];
}

function connections(row: RttRow): string {
  const edge = med(row, (s) => owners(s).edge);
  const runner = med(row, (s) => owners(s).runner);
  const byHand = med(row, (s) => owners(s)["by hand"]);
  return edge + runner > 0 ? `${edge}+${runner}` : String(byHand);
}
