import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closable } from "./closable.ts";

/**
 * A loopback DNS-over-HTTPS resolver speaking the JSON API (application/dns-json) with a fixed zone,
 * so hostname-based SSRF cases resolve without any real DNS.
 */
export async function startFakeDoh(zone: Record<string, { A?: string[]; AAAA?: string[] }>) {
  const queries: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://doh");
    const name = (url.searchParams.get("name") ?? "").replace(/\.$/, "").toLowerCase();
    const type = (url.searchParams.get("type") ?? "A").toUpperCase() as "A" | "AAAA";
    queries.push(`${name}/${type}`);
    const records = zone[name];
    const answers = (records?.[type] ?? []).map((data) => ({ name, type: type === "A" ? 1 : 28, TTL: 60, data }));
    res.writeHead(200, { "content-type": "application/dns-json" });
    res.end(JSON.stringify({ Status: records ? 0 : 3, Answer: answers }));
  });
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/dns-query`, queries, close };
}
