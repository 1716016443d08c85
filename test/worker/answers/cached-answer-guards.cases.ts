// A cached answer (issue 10, item 5) skips the Durable Object, not the request's guards: the real app's
// middleware order keeps the per-client rate limit, validation, X-Request-Id, CORS and Server-Timing in front of
// the edge cache, and each caller still gets its own projection. The test project disables the limiter, so the
// real app runs here with a limit and a binding shaped like Cloudflare's.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

const app = createApp();

/** A Rate Limiting binding that records its keys and answers `allow`. */
function limiter(allow: boolean) {
  const keys: string[] = [];
  return { keys, limit: async ({ key }: { key: string }) => (keys.push(key), { success: allow }) };
}

async function post(url: string, binding: ReturnType<typeof limiter>, query = "", ip = "198.51.100.7") {
  const limited = { ...env, INSPECT_RATE_LIMIT: "60", INSPECT_RATE_LIMITER: binding } as unknown as Env;
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://service/api/v1/inspect${query ? `?${query}` : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": ip, origin: "https://page.example" },
      body: JSON.stringify({ url }),
    }),
    limited,
    ctx,
  );
  const body: any = await response.json();
  await waitOnExecutionContext(ctx);
  return { status: response.status, body, headers: response.headers };
}

async function requestsFor(url: string): Promise<number> {
  const nonce = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce).length;
}

/** A URL inspected once and now answered from the edge cache. */
async function cachedUrl(): Promise<string> {
  const url = media("png-opaque.png");
  expect((await inspect(url)).body).toMatchObject({ responseSource: "fresh" });
  expect((await inspect(url)).body).toMatchObject({ responseSource: "cache" });
  return url;
}

describe("a cached answer keeps the request's guards", () => {
  it("a client over its limit gets 429 for a cached URL, with the id and CORS headers, and nothing is answered from the cache", async () => {
    const url = await cachedUrl();
    const seen = await requestsFor(url);
    const deny = limiter(false);
    const refused = await post(url, deny);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: "error", error: { code: "RATE_LIMITED" } });
    expect(refused.body).not.toHaveProperty("data");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(deny.keys).toEqual(["inspect:198.51.100.7"]);
    expect(await requestsFor(url)).toBe(seen);
  });

  it("an allowed cached answer is counted by the limiter and carries RateLimit, Server-Timing, X-Request-Id and CORS", async () => {
    const url = await cachedUrl();
    const allow = limiter(true);
    const answer = await post(url, allow);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ responseSource: "cache", cached: true });
    expect(allow.keys).toEqual(["inspect:198.51.100.7"]);
    expect(answer.headers.get("ratelimit-policy")).toBe('"inspect";q=60;w=60');
    expect(answer.headers.get("server-timing")).toMatch(/(^|,\s*)total;dur=\d/);
    expect(answer.headers.get("server-timing")).toMatch(/inspect;dur=\d/);
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get("access-control-expose-headers")).toMatch(/Server-Timing/);
  });

  it("a cached URL is still validated: a bad query parameter is a 400, not a cached answer", async () => {
    const url = await cachedUrl();
    for (const query of ["profile=bogus", "expand=rawHeaders", "fields=nope"]) {
      const answer = await post(url, limiter(true), query);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ status: "error", error: { code: "INVALID_PARAMETER" } });
    }
  });

  it("each caller of a cached resource sees its own URL, never an earlier caller's", async () => {
    const url = await cachedUrl();
    const a = await post(`${url}#caller-a`, limiter(true), "", "192.0.2.10");
    const b = await post(`${url}&utm_source=caller-b`, limiter(true), "", "192.0.2.11");
    expect(a.body).toMatchObject({ responseSource: "cache" });
    expect(b.body).toMatchObject({ responseSource: "cache" });
    expect(a.body.data.identity.url).toBe(`${url}#caller-a`);
    expect(b.body.data.identity.url).toBe(`${url}&utm_source=caller-b`);
    expect(JSON.stringify(a.body)).not.toContain("caller-b");
    expect(JSON.stringify(b.body)).not.toContain("caller-a");
  });
});
