import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closable } from "./closable.ts";

/**
 * A loopback HTTP hop in front of the real runner that injects runner faults chosen by the media URL:
 * `runner=down-N` refuses the first N calls for that URL (as if the runner were down), `runner=fail` always
 * answers 500, `runner=slow-MS` answers after MS milliseconds, `runner=timeout-MS` always answers 504
 * PROCESSING_TIMEOUT saying the job spent MS engine milliseconds. Everything else is passed through unchanged. Counts calls per media URL
 * and keeps the X-Request-Id and the client key each call carried (passed through to the runner too).
 */
export async function startRunnerGate(runnerUrl: string) {
  const calls = new Map<string, number>();
  const requestIds = new Map<string, string[]>();
  const clients = new Map<string, string[]>();
  const budgets = new Map<string, unknown[]>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let mediaUrl = "";
    let client = "";
    try {
      const parsed = JSON.parse(body.toString()) as { url?: string; client?: string; budget?: unknown };
      mediaUrl = parsed.url ?? "";
      client = parsed.client ?? "";
      budgets.set(mediaUrl, [...(budgets.get(mediaUrl) ?? []), parsed.budget ?? null]);
    } catch {
      /* pass through */
    }
    clients.set(mediaUrl, [...(clients.get(mediaUrl) ?? []), client]);
    const n = (calls.get(mediaUrl) ?? 0) + 1;
    calls.set(mediaUrl, n);
    const requestId = req.headers["x-request-id"];
    requestIds.set(mediaUrl, [...(requestIds.get(mediaUrl) ?? []), typeof requestId === "string" ? requestId : ""]);
    const down = mediaUrl.match(/runner=down-(\d+)/);
    if (down && n <= Number(down[1])) return req.socket.destroy();
    const slow = mediaUrl.match(/runner=slow-(\d+)/);
    if (slow) await new Promise((r) => setTimeout(r, Number(slow[1])));
    const timeout = mediaUrl.match(/runner=timeout-(\d+)/);
    if (timeout) {
      res.writeHead(504, { "content-type": "application/json" });
      return res.end(JSON.stringify({
        status: "error", error: { code: "PROCESSING_TIMEOUT", message: "injected timeout", usage: { requests: 1, bytes: 1000, engineMs: Number(timeout[1]) } },
      }));
    }
    if (mediaUrl.includes("runner=fail")) {
      res.writeHead(500, { "content-type": "application/json" });
      return res.end(JSON.stringify({ status: "error", error: { code: "INTERNAL_ERROR", message: "injected failure" } }));
    }
    // The runner may be gone already (the suite is ending while a background job is still under way).
    const upstream = await fetch(new URL(req.url ?? "/", runnerUrl), {
      method: req.method,
      headers: {
        "content-type": "application/json",
        authorization: String(req.headers.authorization ?? ""),
        ...(typeof requestId === "string" ? { "x-request-id": requestId } : {}),
      },
      body: req.method === "POST" ? body : undefined,
    }).catch(() => undefined);
    if (!upstream) return req.socket.destroy();
    const answer = await upstream.arrayBuffer().catch(() => undefined);
    if (!answer) return req.socket.destroy();
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(answer));
  });
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls: () => Object.fromEntries(calls),
    requestIds: () => Object.fromEntries(requestIds),
    /** RunnerRequest.client of each call per media URL ("" for a call without one). */
    clients: () => Object.fromEntries(clients),
    /** RunnerRequest.budget of each call per media URL (null for a call without one). */
    budgets: () => Object.fromEntries(budgets),
    close,
  };
}
