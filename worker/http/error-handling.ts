import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { ApiError, errorBody } from "../errors/api-error.ts";

/** Routes and their methods, so a wrong method gets 405 (with Allow) rather than 404. */
const knownRoutes: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/v1\/inspect\/?$/, methods: ["POST"] },
  { pattern: /^\/api\/v1\/job\/[^/]+\/?$/, methods: ["GET"] },
  { pattern: /^\/api\/v1\/thumbnails\/[^/]+$/, methods: ["GET"] },
  { pattern: /^\/(openapi\.json|api-docs|health)$/, methods: ["GET"] },
];

export function notFound(c: Context): Response {
  const path = new URL(c.req.url).pathname;
  const route = knownRoutes.find((r) => r.pattern.test(path));
  if (route) {
    return c.json(errorBody("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed here; use ${route.methods.join(", ")}.`), 405, {
      allow: route.methods.join(", "),
    });
  }
  return c.json(errorBody("NOT_FOUND", `No route for ${c.req.method} ${path}. See /api-docs.`), 404);
}

/** The single error handler: known errors keep their status and message; anything else is a bare 500. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) return c.json(errorBody(err.code, err.publicMessage), err.status);
  if (err instanceof HTTPException && err.status === 400) {
    // Hono's JSON validator throws this for a body that is not valid JSON.
    return c.json(errorBody("INVALID_PAYLOAD", "The request body must be valid JSON: { \"url\": \"https://...\" }."), 400);
  }
  console.error("unhandled error", err);
  return c.json(errorBody("INTERNAL_ERROR", "Internal error. The request was not completed."), 500);
}

/** Formats zod validation failures from @hono/zod-openapi into the error envelope. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target?: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  const target = result.target ?? "json";
  const message = result.error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") return `unknown body field(s): ${issue.keys.join(", ")} (allowed: url, webhookUrl)`;
      const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
      return `${where}${issue.message}`;
    })
    .join("; ");
  if (target === "json") {
    const body = message.includes("expected object") || message === "" ? "The body must be a JSON object: { \"url\": \"https://...\" }." : message;
    return c.json(errorBody("INVALID_PAYLOAD", body), 400);
  }
  return c.json(errorBody("INVALID_PARAMETER", message), 400);
}
