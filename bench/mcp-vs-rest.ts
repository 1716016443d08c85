/**
 * What an MCP tool call costs next to the same REST call, on a cached answer: the real `npm start` and the samples
 * server on loopback, one URL inspected once (full), then rounds that each time one POST /api/v1/inspect and one
 * `inspect_media_url` call through the official MCP SDK client (connected once, as an agent stays connected), the
 * two in alternating order. Prints p50/p90 of each and the ratio of the p50s.
 *
 *   unshare -n -f -p --mount-proc bash -c 'ip link set lo up && media-runner/node_modules/.bin/tsx bench/mcp-vs-rest.ts'
 *
 * Options: --rounds=40, --profile=full (the profile both ask for), --fields=identity,metadata (both ask for only these
 * namespaces: no preview, so the MCP answer carries no thumbnail image and the difference is the protocol's own).
 */
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startSamples, startService } from "../testkit/start-service.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "40" }, profile: { type: "string", default: "full" }, fields: { type: "string" } } });
const rounds = Number(values.rounds);
const profile = values.profile!;
const fields = values.fields;

const samples = await startSamples();
const service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${samples.port}` }, settlePosts: 3 });
try {
  const url = `${samples.url}/video.mp4?bench=${Date.now()}`;
  const rest = async () => {
    const response = await fetch(`${service.base}/api/v1/inspect?profile=${profile}${fields ? `&fields=${fields}` : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url }),
    });
    const body = (await response.json()) as { responseSource?: string };
    return body.responseSource;
  };
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`)));
  const mcp = async () => {
    const result = await client.callTool({ name: "inspect_media_url", arguments: { url, profile, ...(fields ? { fields: fields.split(",") } : {}) } });
    return (result.structuredContent as { responseSource?: string } | undefined)?.responseSource;
  };
  await rest();
  const times: Record<"rest" | "mcp", number[]> = { rest: [], mcp: [] };
  const sources = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    const order: ("rest" | "mcp")[] = round % 2 === 0 ? ["rest", "mcp"] : ["mcp", "rest"];
    for (const kind of order) {
      const started = performance.now();
      const source = await (kind === "rest" ? rest() : mcp());
      times[kind].push(performance.now() - started);
      sources.set(`${kind}:${source}`, (sources.get(`${kind}:${source}`) ?? 0) + 1);
    }
  }
  // tools/list: the server converts the tools' zod schemas to JSON Schema on each list (one server per request).
  const lists: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    await client.listTools();
    lists.push(performance.now() - started);
  }
  // The same list as one raw POST: the server's part alone (the SDK client also compiles each output schema).
  const rawLists: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const response = await fetch(`${service.base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/list" }),
    });
    await response.text();
    rawLists.push(performance.now() - started);
  }
  await client.close();
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const row = (kind: "rest" | "mcp") => `${kind.padEnd(5)} p50 ${pct(times[kind], 50).toFixed(1)} ms  p90 ${pct(times[kind], 90).toFixed(1)} ms`;
  console.log(`cached ${profile} inspection of one video${fields ? ` (fields=${fields})` : ""}, ${rounds} rounds`);
  console.log(row("rest"));
  console.log(row("mcp"));
  console.log(`tools/list p50 ${pct(lists, 50).toFixed(1)} ms through the SDK client, ${pct(rawLists, 50).toFixed(1)} ms as a plain POST (10 calls each)`);
  console.log(`mcp/rest p50 ${(pct(times.mcp, 50) / pct(times.rest, 50)).toFixed(2)}x; answers by source: ${JSON.stringify(Object.fromEntries(sources))}`);
} finally {
  await service.stop("SIGKILL");
  await samples.stop();
}
