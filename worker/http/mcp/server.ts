import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { registerInspectTool } from "./inspect-tool.ts";
import { registerJobTool } from "./job-tool.ts";
import { registerOembedTool } from "./oembed-tool.ts";
import { registerStoryboardTool } from "./storyboard-tool.ts";
import type { ToolContext } from "./tool-context.ts";

/** Name and version the server gives in `initialize`. */
export const mcpServerInfo = { name: "media-inspect", version: "1.0.0" };

const instructions =
  "Inspect media URLs (video, audio, images, HLS/DASH streams, provider pages) without downloading them. Start with " +
  "inspect_media_url; use profile full to wait for the thumbnail, or poll get_inspection_job with the job id a standard " +
  "answer names. get_storyboard shows a video's frames over time; oembed_for_url gives embeddable HTML.";

/**
 * One MCP server per HTTP request (the transport is stateless: no session outlives the request), its tools bound
 * to that request's context. Tool schemas are converted only when a client lists them.
 */
export function createMcpServer(ctx: ToolContext): McpServer {
  // The SDK's default validator (Ajv) compiles schemas to code with `new Function`, which workerd forbids.
  const server = new McpServer(mcpServerInfo, { instructions, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  registerInspectTool(server, ctx);
  registerJobTool(server, ctx);
  registerStoryboardTool(server, ctx);
  registerOembedTool(server, ctx);
  return server;
}
