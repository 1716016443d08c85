// GET /api/v1/inspect?url=...: the same inspection as POST with the URL in the query string, for browsers (a GET
// without custom headers needs no CORS preflight) and links. Same answers, same errors, same rate limit, no
// webhookUrl; denied addresses refused before any connection.
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { inspect, media, trapConnections, trapPort } from "../../../testkit/worker/helpers.ts";

async function get(url: string | undefined, query = "") {
  const params = new URLSearchParams(query);
  if (url !== undefined) params.set("url", url);
  const response = await SELF.fetch(`http://service/api/v1/inspect?${params}`);
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

describe("GET /api/v1/inspect?url=", () => {
  it("answers what POST answers, and the two forms share the resource and its cache", async () => {
    const url = media("png-opaque.png");
    const first = await get(url, "profile=fast");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ success: true, responseSource: "fresh" });
    expect(first.body.data.identity.url).toBe(url);
    expect(first.headers.get("server-timing")).toMatch(/(^|,\s*)total;dur=\d/);
    expect(first.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const posted = await inspect(url, "profile=fast");
    expect(posted.status).toBe(200);
    expect(posted.body.responseSource).not.toBe("fresh");
    expect(posted.body.data).toEqual(first.body.data);
    const again = await get(url, "profile=fast&fields=metadata");
    expect(again.body.responseSource).toBe("cache");
    expect(Object.keys(again.body.data)).toEqual(["metadata"]);
    expect(again.body.data.metadata).toEqual(first.body.data.metadata);
  });

  it("a heavy resource answers 202 with the job's Location, as POST does", async () => {
    const { status, body, headers } = await get(media("video-moov-end.mp4"), "profile=standard");
    expect(status, JSON.stringify(body)).toBe(202);
    expect(headers.get("location")).toBe(`http://service/api/v1/job/${body.job.id}`);
    expect(headers.get("retry-after")).toBe("2");
  });

  it.each([
    ["no url", undefined, "", 400, "INVALID_PARAMETER", "url"],
    ["an ftp URL", "ftp://example.com/a.mp4", "", 400, "INVALID_URL", "http"],
    ["a bad profile", "http://example.com/a.mp4", "profile=bogus", 400, "INVALID_PARAMETER", "profile"],
    ["a webhookUrl", "http://example.com/a.mp4", "webhookUrl=https%3A%2F%2Fhooks.example%2Fx", 400, "INVALID_PARAMETER", "POST"],
  ])("%s -> %i %s", async (_name, url, query, status, code, mentions) => {
    const answer = await get(url, query);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ status: "error", error: { code } });
    expect(answer.body.error.message).toContain(mentions);
  });

  it.each(["url=%E0%A4%A", "url=%zz", "url=http%3A%2F%2Fexample.com%2Fa.mp4&url=http%3A%2F%2Fexample.com%2Fb.mp4", "url"])(
    "a malformed query (%s) is a 4xx in the envelope",
    async (query) => {
      const response = await SELF.fetch(`http://service/api/v1/inspect?${query}`);
      const body: any = await response.json();
      expect(response.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(body.status).toBe("error");
    },
  );

  it("refuses a denied address before any connection", async () => {
    const before = await trapConnections();
    const answer = await get(`http://127.0.0.1:${trapPort}/x.mp4`, "profile=fast");
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("SSRF_BLOCKED");
    expect(await trapConnections()).toBe(before);
  });

  it("counts against the same per-client limit as POST", async () => {
    const keys: string[] = [];
    const binding = { limit: async ({ key }: { key: string }) => (keys.push(key), { success: false }) };
    const limited = { ...env, INSPECT_RATE_LIMIT: "60", INSPECT_RATE_LIMITER: binding } as unknown as Env;
    const ctx = createExecutionContext();
    const url = encodeURIComponent(media("png-opaque.png"));
    const response = await createApp().fetch(
      new Request(`http://service/api/v1/inspect?url=${url}`, { headers: { "cf-connecting-ip": "198.51.100.9" } }),
      limited,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(429);
    expect(((await response.json()) as any).error.code).toBe("RATE_LIMITED");
    expect(keys).toEqual(["inspect:198.51.100.9"]);
  });

  it("is in the OpenAPI document next to POST, without the body's 413 and 415", async () => {
    const doc: any = await (await SELF.fetch("http://service/openapi.json")).json();
    const op = doc.paths["/api/v1/inspect"].get;
    expect(op.operationId).toBe("inspectUrlByQuery");
    expect(op.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["url", "profile", "fields", "expand", "debug"]));
    expect(op.parameters.find((p: any) => p.name === "url").required).toBe(true);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "202", "400", "403", "429"]));
    expect(op.responses).not.toHaveProperty("413");
    expect(op.responses).not.toHaveProperty("415");
    expect(doc.paths["/api/v1/inspect"].post.operationId).toBe("inspectUrl");
  });
});
