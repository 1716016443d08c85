import type { InspectCaller } from "../../service/inspect-service.ts";
import type { RequestLogFields } from "../app-env.ts";

/** What every tool call of one MCP request shares: the Worker's bindings and the HTTP request that carried it. */
export interface ToolContext {
  env: Env;
  /** The HTTP request to /mcp: the client's rate-limit key (CF-Connecting-IP) is read from it, as for REST. */
  request: Request;
  /** The service's public origin, for the absolute URLs the tools write. */
  baseUrl: string;
  /** Request id and client address, passed on to the inspection as the REST routes pass them. */
  caller: InspectCaller;
  /** Adds fields to the request's log line. */
  note(fields: RequestLogFields): void;
}
