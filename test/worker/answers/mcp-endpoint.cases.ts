// The /mcp endpoint's own rules inside workerd: the Origin check as MCP_ALLOWED_ORIGINS configures it, the method
// rule of a stateless server, and the rate limit a tool call spends (same scope and client key as REST). The
// protocol itself is driven by the official SDK client in test/e2e/mcp-and-command.test.ts.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../worker/config/config.ts";
import { createApp } from "../../../worker/http/app.ts";
import { media } from "../../../testkit/worker/helpers.ts";

const jsonRpc = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const ping = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" });

async function send(settings: Record<string, unknown>, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await createApp().fetch(new Request("http://service.test/mcp", init), { ...env, ...settings } as unknown as Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const post = (settings: Record<string, unknown>, headers: Record<string, string> = {}, body = ping) =>
  send(settings, { method: "POST", headers: { ...jsonRpc, ...headers }, body });

describe("POST /mcp: the Origin rule (DNS rebinding)", () => {
  it("answers a client that sends no Origin (desktop and command-line clients)", async () => {
    const response = await post({});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  it("answers the service's own origin, and PUBLIC_BASE_URL's", async () => {
    expect((await post({}, { origin: "http://service.test" })).status).toBe(200);
    expect((await post({ PUBLIC_BASE_URL: "https://media.example" }, { origin: "https://media.example" })).status).toBe(200);
  });

  it("refuses any other Origin with 403 by default, before the body is read", async () => {
    for (const origin of ["http://service.test:8080", "https://evil.example", "null"]) {
      const response = await post({}, { origin }, "{ not json");
      expect(response.status, origin).toBe(403);
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringContaining("MCP_ALLOWED_ORIGINS") }, id: null });
    }
  });

  it("answers the origins MCP_ALLOWED_ORIGINS lists, and every origin with *", async () => {
    const listed = { MCP_ALLOWED_ORIGINS: "https://app.example, https://cms.example" };
    expect((await post(listed, { origin: "https://cms.example" })).status).toBe(200);
    expect((await post(listed, { origin: "https://other.example" })).status).toBe(403);
    expect((await post({ MCP_ALLOWED_ORIGINS: "*" }, { origin: "https://other.example" })).status).toBe(200);
  });

  it("rejects a setting that is not a list of origins, naming the variable", () => {
    expect(() => getConfig({ MCP_ALLOWED_ORIGINS: "https://app.example/path" })).toThrow(/MCP_ALLOWED_ORIGINS: not an origin/);
  });
});

describe("/mcp methods and limits", () => {
  it("is stateless: GET (no event stream) and DELETE (no session) answer 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await send({}, { method, headers: { accept: "text/event-stream" } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("a tool call spends one inspection of the client's limit, under the REST routes' scope and key", async () => {
    const keys: string[] = [];
    const binding = { limit: async ({ key }: { key: string }) => (keys.push(key), { success: false }) };
    const limited = { INSPECT_RATE_LIMIT: "60", INSPECT_RATE_LIMITER: binding };
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "inspect_media_url", arguments: { url: media("png-opaque.png") } } });
    const response = await post(limited, { "cf-connecting-ip": "198.51.100.9", "mcp-protocol-version": "2025-11-25" }, call);
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text).error.code).toBe("RATE_LIMITED");
    expect(keys).toEqual(["inspect:198.51.100.9"]);
    // Listing the tools spends nothing.
    await post(limited, { "cf-connecting-ip": "198.51.100.9", "mcp-protocol-version": "2025-11-25" }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(keys).toHaveLength(1);
  });

  it("refuses a request body over the bound with 413 before parsing it", async () => {
    const response = await post({}, {}, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(70 * 1024) } }));
    expect(response.status).toBe(413);
  });
});
