/**
 * What one fault costs the Worker: workerd CPU per request, read from /proc, for GET /health
 * (the floor of any request through the local stack), a retried failing URL (the remembered error), a new
 * failing URL every time (a new Durable Object each), and a new URL refused before any fetch. Sequential
 * requests against the real `npm start`; prints one line per kind. Figures swing by 1-2 ms between runs on a
 * shared machine: compare runs made one after the other.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && media-runner/node_modules/.bin/tsx bench/fault-cost.ts --count=150'
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startFaultOrigins } from "../testkit/reliability/fault-origin.ts";
import { inspect, startService } from "../testkit/reliability/service.ts";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;
/** Index of the reset origin among the fault origins (kinds repeat slow, trickle, reset, hang). */
const resetOrigin = 2;

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** CPU ms (user + system) of the workerd processes started below this process. */
function workerdCpuMs(): number {
  let ticks = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!/workerd\S* serve/.test(readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " "))) continue;
      let ancestor = Number(name);
      while (ancestor > 1 && ancestor !== process.pid) ancestor = parentOf(ancestor);
      if (ancestor !== process.pid) continue; // another service's workerd
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* exited meanwhile */
    }
  }
  return (ticks * 1000) / ticksPerSecond;
}

const { values } = parseArgs({ options: { count: { type: "string", default: "150" } } });
const count = Number(values.count);
const faults = await startFaultOrigins(4);
const service = await startService({ SSRF_ALLOWLIST: faults.allowlist });
try {
  for (let i = 0; i < 20; i++) await inspect(service.base, faults.url(resetOrigin, `warm-${i}`)); // warm-up
  const run = Date.now();
  const measure = async (label: string, one: (i: number) => Promise<unknown>) => {
    const cpu = workerdCpuMs();
    const started = performance.now();
    for (let i = 0; i < count; i++) await one(i);
    const wall = (performance.now() - started) / count;
    console.log(`fault-cost: ${label}: workerd CPU ${((workerdCpuMs() - cpu) / count).toFixed(1)} ms/request, wall ${wall.toFixed(1)} ms/request (${count} sequential)`);
  };
  await measure("GET /health", () => fetch(`${service.base}/health`).then((r) => r.text()));
  await measure("retried reset URL", () => inspect(service.base, faults.url(resetOrigin, `repeat-${run}`)));
  await measure("new reset URL each time", (i) => inspect(service.base, faults.url(resetOrigin, `fresh-${run}-${i}`)));
  await measure("new URL refused before any fetch", (i) => inspect(service.base, `http://127.0.0.1:9/x?n=blocked-${run}-${i}`));
} finally {
  await service.stop();
  await faults.close();
}
