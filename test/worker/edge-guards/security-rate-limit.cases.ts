// Issue 15, findings 4/9 (per-client limit on /api/v1/inspect; HEAD counted too: issue 20, item 3) and 7 (per-target-host webhook limit).
// The test project disables both limits (every test is one client); here the middleware runs on its own app
// with the limits set, once with the isolate-local counter and once with a binding like Cloudflare's.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { inspectRateLimit } from "../../../worker/http/rate-limit.ts";
import { checkRate } from "../../../worker/rate/rate-check.ts";
import { webhookHostAllowed } from "../../../worker/webhook/host-rate-limit.ts";
import { getConfig } from "../../../worker/config/config.ts";

function appWith(env: Record<string, unknown>) {
  const app = new Hono<{ Bindings: Env }>();
  app.use("/api/v1/inspect", inspectRateLimit());
  app.post("/api/v1/inspect", (c) => c.json({ ok: true }));
  // CF-Connecting-IP names the client as Cloudflare's edge sets it (CLIENT_IP_SOURCE=cloudflare, wrangler.toml).
  const edge = { CLIENT_IP_SOURCE: "cloudflare", ...env };
  return (ip: string) => app.request("/api/v1/inspect", { method: "POST", headers: { "cf-connecting-ip": ip } }, edge as unknown as Env);
}

describe("HEAD, GET and POST /api/v1/inspect per client", () => {
  it("counts every request routed to it: HEAD (Hono answers it with the GET route) as much as GET and POST", async () => {
    // Wired as worker/http/app.ts wires it: mounted on GET and POST; Hono routes HEAD to GET.
    const app = new Hono<{ Bindings: Env }>();
    app.on(["GET", "POST"], "/api/v1/inspect", inspectRateLimit());
    app.on(["GET", "POST"], "/api/v1/inspect", (c) => c.json({ ok: true }));
    const env = { INSPECT_RATE_LIMIT: "2", INSPECT_RATE_PERIOD_SECONDS: "60", CLIENT_IP_SOURCE: "cloudflare" } as unknown as Env;
    const ip = `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;
    const call = (method: string) => app.request("/api/v1/inspect", { method, headers: { "cf-connecting-ip": ip } }, env);
    const statuses: number[] = [];
    for (const method of ["HEAD", "HEAD", "HEAD", "GET", "POST"]) statuses.push((await call(method)).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
  });
});

describe("POST /api/v1/inspect per client", () => {
  it("answers 429 with Retry-After and RateLimit fields past the limit, per client (local counter)", async () => {
    const call = appWith({ INSPECT_RATE_LIMIT: "3", INSPECT_RATE_PERIOD_SECONDS: "60" });
    const ip = `198.51.100.${Math.floor(Math.random() * 200)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(ip)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await call(ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toBe('"inspect";q=3;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"inspect";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
    // Another client is unaffected; an allowed answer carries the fields too.
    const other = await call("203.0.113.77");
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit")).toBe('"inspect";r=2;t=60');
  });

  it("uses the Rate Limiting binding when there is one", async () => {
    const keys: string[] = [];
    let allow = true;
    const binding = { limit: async ({ key }: { key: string }) => (keys.push(key), { success: allow }) };
    const call = appWith({ INSPECT_RATE_LIMIT: "60", INSPECT_RATE_LIMITER: binding });
    expect((await call("192.0.2.1")).status).toBe(200);
    allow = false;
    const refused = await call("192.0.2.1");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(keys).toEqual(["inspect:192.0.2.1", "inspect:192.0.2.1"]);
  });

  it("INSPECT_RATE_LIMIT=0 disables it", async () => {
    const call = appWith({ INSPECT_RATE_LIMIT: "0" });
    for (let i = 0; i < 5; i++) expect((await call("192.0.2.9")).status).toBe(200);
  });
});

describe("webhook POSTs per target host", () => {
  it("a host over its limit waits; other hosts do not", async () => {
    const config = getConfig({ WEBHOOK_HOST_RATE_LIMIT: "2", WEBHOOK_HOST_RATE_PERIOD_SECONDS: "60" });
    const host = `victim-${crypto.randomUUID()}.example`;
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await webhookHostAllowed({}, config, host)).allowed);
    expect(seen).toEqual([true, true, false]);
    expect((await webhookHostAllowed({}, config, "other.example")).allowed).toBe(true);
  });

  it("the local counter opens a new window after the period", async () => {
    const key = crypto.randomUUID();
    expect((await checkRate(undefined, "t", key, 1, 10, 0)).allowed).toBe(true);
    expect((await checkRate(undefined, "t", key, 1, 10, 5_000)).allowed).toBe(false);
    expect((await checkRate(undefined, "t", key, 1, 10, 10_000)).allowed).toBe(true);
  });
});
