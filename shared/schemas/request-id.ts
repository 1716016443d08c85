import { z } from "zod";

/** Longest caller-supplied X-Request-Id kept (hono/request-id also requires [A-Za-z0-9_=-]); else one is generated. */
export const maxRequestIdLength = 64;

/**
 * The X-Request-Id of the inspection that started a piece of background work (queue messages, runner calls), so
 * the Durable Object's, the queue consumer's and the runner's log lines can be joined with the request's own.
 */
export const RequestId = z.string().min(1).max(maxRequestIdLength).regex(/^[A-Za-z0-9_=-]+$/);
export type RequestId = z.infer<typeof RequestId>;
