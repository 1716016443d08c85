/**
 * The MCP server at /mcp (Model Context Protocol, Streamable HTTP transport, stateless, JSON answers): the tools
 * are thin layers over the same service functions as the REST routes, with the same SSRF checks, per-client
 * rate limit and per-inspection budget.
 */
import type { Context } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppEnv } from "../app-env.ts";
import { clientAddressOf } from "../rate-limit.ts";
import { annotate } from "../request-log.ts";
import { createMcpServer } from "./server.ts";

export { mcpOriginGuard } from "./origin-guard.ts";

/** Largest JSON-RPC request body read: tool arguments are a URL and a few names. */
export const mcpMaxRequestBytes = 64 * 1024;

/** POST /mcp: one JSON-RPC message (or batch) in, its answers out as one JSON body. */
export async function answerMcp(c: Context<AppEnv>, baseUrl: string): Promise<Response> {
  const clientAddress = clientAddressOf(c.req.raw, c.env);
  const server = createMcpServer({
    env: c.env,
    request: c.req.raw,
    baseUrl,
    caller: { requestId: c.get("requestId"), ...(clientAddress ? { clientAddress } : {}) },
    note: (fields) => annotate(c, fields),
  });
  // Stateless (no session id) and JSON answers rather than an event stream: every tool answers once, and a
  // Worker holds no stream open between requests.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: mcpMaxRequestBytes,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw);
  } finally {
    await server.close();
  }
}
