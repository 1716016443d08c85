import type { Context, MiddlewareHandler } from "hono";
import { corsOriginList, getConfig } from "../../config/config.ts";
import type { AppEnv } from "../app-env.ts";
import { annotate } from "../request-log.ts";

/**
 * The Streamable HTTP transport's rule against DNS rebinding: a page on another site can have its own host name
 * resolve to this server's address (a local `npm start`, a server inside a private network) and call it from the
 * visitor's browser. The browser still names the page's site in `Origin`, so an `Origin` that is neither this
 * service's own origin nor configured (MCP_ALLOWED_ORIGINS) is refused with 403 before anything runs. Desktop
 * and command-line clients send no `Origin` and are not affected.
 */
export function mcpOriginGuard(ownOrigin: (c: Context<AppEnv>) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin === undefined || isAllowed(origin, c, ownOrigin)) return next();
    annotate(c, { errorCode: "FORBIDDEN_ORIGIN" });
    // The endpoint speaks JSON-RPC: the refusal is a JSON-RPC error without an id, as the SDK's transport writes its own.
    return c.json({ jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: Origin ${origin.slice(0, 200)} is not allowed to call this MCP server (see MCP_ALLOWED_ORIGINS).` }, id: null }, 403);
  };
}

function isAllowed(origin: string, c: Context<AppEnv>, ownOrigin: (c: Context<AppEnv>) => string): boolean {
  const allowed = corsOriginList(getConfig(c.env).MCP_ALLOWED_ORIGINS);
  if (allowed.includes("*")) return true;
  return origin === new URL(ownOrigin(c)).origin || origin === new URL(c.req.url).origin || allowed.includes(origin);
}
