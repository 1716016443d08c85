/**
 * V8 heap of each isolate of a local workerd, read over its inspector (DevTools protocol, Runtime.getHeapUsage),
 * so a soak can tell JavaScript heap (ours to fix) from the runtime's native memory. `wrangler dev` starts the
 * service's workerd with `--inspector-addr=localhost:0`; the port is found from the process's listening sockets.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createRequire } from "node:module";

/** The `ws` client wrangler's miniflare installs (Node 20 has no WebSocket client without a flag); only what is used here. */
interface InspectorSocket {
  on(event: "open" | "error", listener: () => void): void;
  on(event: "message", listener: (data: unknown) => void): void;
  send(text: string): void;
  terminate(): void;
}
const WebSocketCtor = createRequire(import.meta.url)("ws") as new (url: string) => InspectorSocket;

/** Loopback ports the process listens on (from /proc/<pid>/net/tcp, matched to its socket fds). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 9 && f[3] === "0A" && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(":")[1]!, 16));
  }
  return ports;
}

async function heapOf(wsUrl: string, timeoutMs: number): Promise<{ usedMiB: number; totalMiB: number } | undefined> {
  return new Promise((resolve) => {
    const ws = new WebSocketCtor(wsUrl);
    const done = (v: { usedMiB: number; totalMiB: number } | undefined) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(v);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    ws.on("open", () => ws.send(JSON.stringify({ id: 1, method: "Runtime.getHeapUsage" })));
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: { usedSize: number; totalSize: number } };
      if (msg.id === 1 && msg.result) done({ usedMiB: Math.round(msg.result.usedSize / 2 ** 20), totalMiB: Math.round(msg.result.totalSize / 2 ** 20) });
    });
    ws.on("error", () => done(undefined));
  });
}

/** Used/total V8 heap (MiB) of every isolate the workerd `pid` exposes over its inspector; {} if none answers. */
export async function isolateHeaps(pid: number, timeoutMs = 15_000): Promise<Record<string, { usedMiB: number; totalMiB: number }>> {
  const out: Record<string, { usedMiB: number; totalMiB: number }> = {};
  for (const port of listeningPorts(pid)) {
    let targets: { id: string; webSocketDebuggerUrl?: string }[];
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(timeoutMs) });
      targets = (await res.json()) as typeof targets;
      if (!Array.isArray(targets)) continue;
    } catch {
      continue;
    }
    for (const t of targets) {
      if (!t.webSocketDebuggerUrl || !t.id.includes(":")) continue;
      const heap = await heapOf(t.webSocketDebuggerUrl, timeoutMs);
      if (heap) out[t.id] = heap;
    }
  }
  return out;
}

if (process.argv[1]?.endsWith("isolate-heaps.ts")) console.log(JSON.stringify(await isolateHeaps(Number(process.argv[2]))));
