import type { RequestIdVariables } from "hono/request-id";
import type { TimingVariables } from "hono/timing";

/** What a handler tells the request log about its request (beyond method, route, status and time). */
export interface RequestLogFields {
  profile?: string;
  responseSource?: string;
  targetHost?: string;
  /** Bytes this request pulled from the origin (0 when answered from the record). */
  bytesPulled?: number;
  errorCode?: string;
  /** Why an origin refused (error.reason). */
  errorReason?: string;
  jobId?: string;
  /** URLs in a batch request. */
  batchSize?: number;
  /** The MCP tool a POST /mcp called. */
  mcpTool?: string;
}

/** Hono environment of the app: Worker bindings plus the per-request variables the middleware share. */
export type AppEnv = {
  Bindings: Env;
  Variables: RequestIdVariables & TimingVariables & { log: RequestLogFields };
};
