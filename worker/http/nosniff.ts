import type { MiddlewareHandler } from "hono";

/**
 * `X-Content-Type-Options: nosniff` on every answer the Worker writes (routes, errors, 404/405, preflights,
 * thumbnails, docs, openapi.json): a browser must not guess a script or a page out of a JSON error or an image.
 * Only this header: Hono's secureHeaders would also send `Cross-Origin-Resource-Policy: same-origin`, which
 * stops other sites embedding our thumbnails. Static assets (the playground, /vendor) get it from public/_headers.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
};
