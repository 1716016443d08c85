import type { Context, MiddlewareHandler } from "hono";
import { errorBody } from "../errors/api-error.ts";
import { discardRest } from "./discard-body.ts";

/**
 * Largest request body accepted, checked before anything parses it (on Content-Length, else while streaming).
 * The body is `{ url, webhookUrl? }` with URLs of at most 2048 characters: 16 KiB leaves room for JSON escaping.
 */
export const maxRequestBodyBytes = 16 * 1024;

/** A batch body: up to maxBatchUrls URLs of 2048 characters, with room for escaping. */
export const maxBatchBodyBytes = 64 * 1024;

/**
 * 413 in the error envelope for a request body over `maxRequestBodyBytes`. A declared length is judged on its
 * header (workerd holds the body to it); a streamed body (chunked, no Content-Length) is read into one buffer of
 * at most the limit, and the read stops at the first chunk past it: nothing beyond the limit is kept. What the
 * client still sends is discarded, bounded (discard-body.ts), before answering, so the connection stays usable.
 */
export const requestBodyLimit = bodyLimitOf(maxRequestBodyBytes, `send only { "url": "...", "webhookUrl"?: "..." }`);
export const batchBodyLimit = bodyLimitOf(maxBatchBodyBytes, `send only { "urls": [...], "webhookUrl"?: "..." }`);

function bodyLimitOf(maxBytes: number, hint: string): MiddlewareHandler {
  const tooLarge = (c: Context) => c.json(errorBody("PAYLOAD_TOO_LARGE", `The request body exceeds ${maxBytes} bytes; ${hint}.`), 413);
  return async (c, next) => {
    const request = c.req.raw;
    if (!request.body) return next();
    const declared = request.headers.get("content-length");
    if (declared !== null && !request.headers.has("transfer-encoding")) {
      return Number(declared) > maxBytes ? tooLarge(c) : next();
    }
    const reader = request.body.getReader();
    const buffer = new Uint8Array(maxBytes);
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        await discardRest(reader);
        return tooLarge(c);
      }
      buffer.set(value, size);
      size += value.byteLength;
    }
    c.req.raw = new Request(request, { body: buffer.subarray(0, size) });
    return next();
  };
}
