import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorBody } from "../errors/api-error.ts";

/**
 * Largest request body accepted, checked before anything parses it (on Content-Length, else while streaming).
 * The body is `{ url, webhookUrl? }` with URLs of at most 2048 characters: 16 KiB leaves room for JSON escaping.
 */
export const maxRequestBodyBytes = 16 * 1024;

/** 413 in the error envelope for a request body over `maxRequestBodyBytes`. */
export const requestBodyLimit: MiddlewareHandler = bodyLimit({
  maxSize: maxRequestBodyBytes,
  onError: (c) =>
    c.json(
      errorBody("PAYLOAD_TOO_LARGE", `The request body exceeds ${maxRequestBodyBytes} bytes; send only { "url": "...", "webhookUrl"?: "..." }.`),
      413,
    ),
});
