import { clientAddressOf } from "./rate-limit.ts";
import type { Context } from "hono";
import type { OembedQuery } from "../../shared/schemas/oembed-document.ts";
import { ApiError } from "../errors/api-error.ts";
import type { AppEnv } from "./app-env.ts";
import { oembedDocument } from "./oembed-document.ts";
import { inspectForSharing } from "./oembed-inspection.ts";
import { annotate } from "./request-log.ts";

/** The only format served; oEmbed 2.3.3 answers any other with 501 Not Implemented. */
const servedFormat = "json";

/** GET /oembed: the oEmbed document of a media URL. */
export async function answerOembed(c: Context<AppEnv>, query: OembedQuery, baseUrl: string) {
  // Checked before any inspection: a format we cannot write is refused without touching the origin.
  if (query.format !== undefined && query.format !== servedFormat) {
    throw new ApiError(501, "NOT_IMPLEMENTED", `format=${query.format} is not implemented: this provider answers format=json only.`);
  }
  annotate(c, { profile: "oembed", targetHost: hostOf(query.url) });
  const shared = await inspectForSharing(c.env, query.url, baseUrl, { requestId: c.get("requestId"), clientAddress: clientAddressOf(c.req.raw, c.env) });
  annotate(c, { responseSource: shared.outcome.responseSource });
  const doc = oembedDocument(shared.media, { maxwidth: query.maxwidth, maxheight: query.maxheight, cacheAge: shared.cacheAge, baseUrl, url: query.url });
  c.header("Cache-Control", shared.complete && shared.cacheAge > 0 ? `public, max-age=${shared.cacheAge}` : "no-store");
  return c.json(doc, 200);
}

export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
