import { ApiError } from "../errors/api-error.ts";
import { detectProvider } from "../../shared/providers/index.ts";
import { normalizeUrl, parseTargetUrl, resourceKey } from "../record/target-url.ts";
import type { NestedReply } from "../stages/page-media-stage.ts";
import { inspectAt, type InspectReply } from "./resource-rpc.ts";

/**
 * Another URL a page names, inspected by its own Durable Object exactly as a caller's inspection would route it.
 * `self`: the page's own normalised URL (a page naming itself is refused).
 */
export async function inspectNested(env: Env, raw: string, profile: "fast" | "full", self: string): Promise<NestedReply> {
  let url: URL;
  try {
    url = parseTargetUrl(raw);
  } catch (err) {
    return { ok: false, reason: err instanceof ApiError ? `${err.code}: ${err.publicMessage}` : "invalid URL" };
  }
  const match = detectProvider(url);
  const normalizedUrl = match ? match.canonicalUrl : normalizeUrl(url);
  if (normalizedUrl === self) return { ok: false, reason: "the page names itself" };
  let reply: InspectReply;
  try {
    reply = await inspectAt(env, normalizedUrl, {
      key: await resourceKey(normalizedUrl), url: url.href, normalizedUrl, profile, nested: true, ...(match ? { provider: match } : {}),
    });
  } catch (err) {
    // The other object failing (reset, overload) fails this stage, not the page.
    return { ok: false, reason: `INTERNAL_ERROR: the named media could not be inspected (${String(err).slice(0, 80)})` };
  }
  return reply.ok ? { ok: true, record: reply.record } : { ok: false, reason: `${reply.error.code}: ${reply.error.message}` };
}
