// Issue 20, items 3 and 9: every method that reaches an inspection is counted (HEAD is GET without the body, so
// Hono runs the GET route for it); 405/Allow and CORS agree with what is served; every answer carries
// X-Content-Type-Options: nosniff. The test project runs with INSPECT_RATE_LIMIT=0 (one client for all tests), so
// the limit is set here on the app itself, with the isolate-local counter (no binding) and one client address per test.
import { SELF, createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { maxRequestBodyBytes } from "../../../worker/http/json-body.ts";
import { media, originStats } from "../../../testkit/worker/helpers.ts";

const app = createApp();

function limitedTo(limit: number): Env {
  return { ...env, INSPECT_RATE_LIMIT: String(limit), INSPECT_RATE_PERIOD_SECONDS: "60", INSPECT_RATE_LIMITER: undefined } as unknown as Env;
}

/** One inspection of `target` by `method` from `ip`, through the whole app (middleware, routes, inspection). */
async function inspectAs(limited: Env, ip: string, method: "GET" | "HEAD" | "POST", target: string): Promise<Response> {
  const headers: Record<string, string> = { "cf-connecting-ip": ip };
  const init: RequestInit =
    method === "POST"
      ? { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ url: target }) }
      : { method, headers };
  const query = method === "POST" ? "?profile=fast" : `?profile=fast&url=${encodeURIComponent(target)}`;
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://service/api/v1/inspect${query}`, init), limited, ctx);
  await response.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return response;
}

/** A real address (the service identifies no one by a header that is not an address), one per test. */
const uniqueClient = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;

describe("HEAD, GET and POST /api/v1/inspect share the per-client limit", () => {
  it("with a limit of 3, the 4th inspection gets 429 whichever method asks, HEAD included", async () => {
    const limited = limitedTo(3);
    const ip = uniqueClient();
    const statuses: number[] = [];
    for (const method of ["HEAD", "GET", "POST"] as const) statuses.push((await inspectAs(limited, ip, method, media("png-opaque.png"))).status);
    expect(statuses).toEqual([200, 200, 200]);
    for (const method of ["HEAD", "GET", "POST"] as const) {
      const refused = await inspectAs(limited, ip, method, media("png-opaque.png"));
      expect(refused.status, method).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("ratelimit-policy")).toBe('"inspect";q=3;w=60');
    }
  });

  it("a HEAD within the limit answers GET's status and headers without a body, and uses one of the client's inspections", async () => {
    const limited = limitedTo(2);
    const ip = uniqueClient();
    const head = await inspectAs(limited, ip, "HEAD", media("png-opaque.png"));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^application\/json/);
    expect(head.headers.get("ratelimit")).toMatch(/^"inspect";r=1;t=\d+$/);
  });

  it("a HEAD past the limit starts no inspection: 429, and the target is never fetched", async () => {
    const limited = limitedTo(1);
    const ip = uniqueClient();
    expect((await inspectAs(limited, ip, "GET", media("png-opaque.png"))).status).toBe(200);
    const unseen = media("png-alpha.png");
    const refused = await inspectAs(limited, ip, "HEAD", unseen);
    expect(refused.status).toBe(429);
    const path = new URL(unseen).pathname + new URL(unseen).search;
    expect((await originStats()).requests.filter((r) => r.path === path)).toEqual([]);
  });
});

describe("405, Allow and CORS agree with what is served", () => {
  it.each([
    ["PUT", "/api/v1/inspect", "GET, HEAD, POST"],
    ["DELETE", "/api/v1/inspect", "GET, HEAD, POST"],
    ["POST", "/api/v1/job/abc", "GET, HEAD"],
    ["PUT", "/api/v1/thumbnails/x.webp", "GET, HEAD"],
    ["POST", "/openapi.json", "GET, HEAD"],
    ["POST", "/health", "GET, HEAD"],
  ])("%s %s -> 405 with Allow: %s", async (method, path, allow) => {
    const response = await SELF.fetch(`http://service${path}`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(((await response.json()) as any).error).toMatchObject({ code: "METHOD_NOT_ALLOWED", message: expect.stringContaining(allow) });
  });

  it("every method an Allow lists is served (HEAD answers like GET) and is in the preflight's allowed methods", async () => {
    const preflight = await SELF.fetch("http://service/api/v1/inspect", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    const corsMethods = (preflight.headers.get("access-control-allow-methods") ?? "").split(",").map((m) => m.trim());
    for (const method of ["GET", "HEAD", "POST"]) expect(corsMethods).toContain(method);
    const health = await SELF.fetch("http://service/health", { method: "HEAD" });
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("");
    const job = await SELF.fetch("http://service/api/v1/job/does-not-exist", { method: "HEAD" });
    expect(job.status).toBe(404);
  });

  it("a 405 never names the method it refuses as allowed (a trailing slash is not the inspect route)", async () => {
    const response = await SELF.fetch("http://service/api/v1/inspect/");
    if (response.status === 405) expect(response.headers.get("allow")?.split(", ")).not.toContain("GET");
    else expect(response.status).toBe(404);
  });
});

describe("X-Content-Type-Options: nosniff on every kind of answer", () => {
  const streamedOversize = () => {
    const chunk = new TextEncoder().encode("x".repeat(4096));
    let sent = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > maxRequestBodyBytes * 4) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
  };
  const cases: [string, () => Promise<Response>, number][] = [
    ["a GET inspection", () => SELF.fetch(`http://service/api/v1/inspect?profile=fast&url=${encodeURIComponent(media("png-opaque.png"))}`), 200],
    ["a HEAD inspection", () => SELF.fetch(`http://service/api/v1/inspect?profile=fast&url=${encodeURIComponent(media("png-opaque.png"))}`, { method: "HEAD" }), 200],
    ["a 400", () => SELF.fetch("http://service/api/v1/inspect", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), 400],
    ["a 404", () => SELF.fetch("http://service/nope"), 404],
    ["a 405", () => SELF.fetch("http://service/api/v1/inspect", { method: "PUT" }), 405],
    ["a preflight", () => SELF.fetch("http://service/api/v1/inspect", { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } }), 204],
    ["a streamed 413", () => SELF.fetch("http://service/api/v1/inspect", { method: "POST", headers: { "content-type": "application/json" }, body: streamedOversize(), duplex: "half" } as RequestInit), 413],
    ["a job 404", () => SELF.fetch("http://service/api/v1/job/does-not-exist"), 404],
    ["a thumbnail 404", () => SELF.fetch(`http://service/api/v1/thumbnails/${"0".repeat(64)}-320x180.webp`), 404],
    ["/health", () => SELF.fetch("http://service/health"), 200],
    ["/openapi.json", () => SELF.fetch("http://service/openapi.json"), 200],
    ["/api-docs", () => SELF.fetch("http://service/api-docs"), 200],
  ];
  it.each(cases)("%s", async (_name, call, status) => {
    const response = await call();
    await response.arrayBuffer();
    expect(response.status).toBe(status);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a thumbnail served from R2 and a 429", async () => {
    const file = `${"a".repeat(64)}-16x16.webp`;
    await env.THUMBNAILS.put(`thumbnails/${file}`, new Uint8Array([0x52, 0x49, 0x46, 0x46]));
    const thumbnail = await SELF.fetch(`http://service/api/v1/thumbnails/${file}`);
    await thumbnail.arrayBuffer();
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get("x-content-type-options")).toBe("nosniff");
    const limited = limitedTo(1);
    const ip = uniqueClient();
    await inspectAs(limited, ip, "GET", media("png-opaque.png"));
    const refused = await inspectAs(limited, ip, "GET", media("png-opaque.png"));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
