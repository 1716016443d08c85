import type { CallToolResult, ImageContent } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, errorBody, errors } from "../../errors/api-error.ts";
import { errorField, logEvent } from "../../log/event-log.ts";
import { spendInspection } from "../rate-limit.ts";
import type { ToolContext } from "./tool-context.ts";

/**
 * A failure as an MCP tool result: `isError` with the API's error envelope as its text, the same code and message
 * the REST route would answer. No structuredContent: a failure does not match the tool's output schema.
 */
export function errorResult(error: ApiError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(errorBody(error.code, error.publicMessage, error.extras)) }] };
}

/**
 * Runs one tool call: the API's errors become isError results; anything else is logged and answered as the
 * REST routes answer it (INTERNAL_ERROR, no detail), never as the SDK's default (the exception's own message).
 */
export async function answerTool(ctx: ToolContext, tool: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  ctx.note({ mcpTool: tool });
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError) {
      ctx.note({ errorCode: err.code, ...(err.extras.reason ? { errorReason: err.extras.reason } : {}) });
      return errorResult(err);
    }
    logEvent("error", "mcp tool failure", { ...(ctx.caller.requestId ? { requestId: ctx.caller.requestId } : {}), tool, error: errorField(err) });
    ctx.note({ errorCode: "INTERNAL_ERROR" });
    return errorResult(new ApiError(500, "INTERNAL_ERROR", "Internal error. The tool call was not completed."));
  }
}

/** Spends one inspection from the client's rate-limit window, as POST /api/v1/inspect does; throws RATE_LIMITED past it. */
export async function spendOneInspection(ctx: ToolContext): Promise<void> {
  const decision = await spendInspection(ctx.env, ctx.request);
  if (!decision || decision.allowed) return;
  const refused = errors.rateLimited(String(decision.resetSeconds));
  throw new ApiError(429, "RATE_LIMITED", `Too many inspections from this client: at most ${decision.limit} per ${decision.periodSeconds} s; retry in ${decision.resetSeconds} s.`, undefined, refused.extras);
}

/** A successful result: the text for the model first, then any images, and the API's data as structuredContent. */
export function dataResult(structured: object, text: string, images: (ImageContent | undefined)[] = []): CallToolResult {
  return {
    content: [{ type: "text", text }, ...images.filter((image): image is ImageContent => image !== undefined)],
    structuredContent: structured as Record<string, unknown>,
  };
}
