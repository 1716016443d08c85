/**
 * HTTP caching of inspect answers (RFC 9110 validators, RFC 9111 Cache-Control and Age, RFC 9211 Cache-Status):
 * a browser, CDN or client cache can keep a complete answer for the rest of its record's life (max-age the whole
 * life, Age the part used) and revalidate it with If-None-Match; answers still changing (partial, 202) are never
 * stored.
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { etagMatches } from "./thumbnail-handler.ts";
import { sha256Hex } from "../encoding/sha256.ts";

/** The service's name in Cache-Status (RFC 9211: each cache names itself). */
export const cacheStatusName = "media-inspect";
/** After max-age, a cache may serve the answer this long while it revalidates in the background. */
export const staleWhileRevalidateSeconds = 60;

export type ResponseSource = "fresh" | "cache" | "inflight";

export interface AnswerCaching {
  etag: string;
  headers: Record<string, string>;
}

/**
 * The ETag is a digest of the body without the fields that say how this one request was answered
 * (`responseSource`, `cached`): the same record seen through the same query has the same tag whether it came
 * from the edge cache or the object, so a revalidation after a fresh answer still gets its 304. Strong: the
 * bytes of the body are exactly determined by what is hashed.
 */
export async function answerCaching(
  body: unknown,
  record: ResourceRecord,
  source: ResponseSource,
  complete: boolean,
  now = Date.now(),
  revalidation?: { upstreamStatus?: number },
): Promise<AnswerCaching> {
  const shape = body && typeof body === "object" ? { ...(body as Record<string, unknown>), responseSource: undefined, cached: undefined } : body;
  // The first 16 bytes of the digest (32 hex characters).
  const etag = `"${(await sha256Hex(JSON.stringify(shape))).slice(0, 32)}"`;
  const { life, age, ttl } = freshnessOf(record, now);
  // A record past the caller's maxAge went to the origin (RFC 9211 fwd=stale) with what it answered (fwd-status).
  const forwarded = revalidation
    ? `${cacheStatusName}; fwd=stale${revalidation.upstreamStatus !== undefined ? `; fwd-status=${revalidation.upstreamStatus}` : ""}${complete ? "; stored" : ""}${complete ? `; ttl=${ttl}` : ""}`
    : undefined;
  const cacheStatus = forwarded ?? (source === "cache"
    ? `${cacheStatusName}; hit; ttl=${ttl}`
    : `${cacheStatusName}; fwd=miss${source === "inflight" ? "; collapsed" : complete ? "; stored" : ""}${complete ? `; ttl=${ttl}` : ""}`);
  return {
    etag,
    headers: {
      etag,
      "cache-control": complete && ttl > 0 ? `public, max-age=${life}, stale-while-revalidate=${staleWhileRevalidateSeconds}` : "no-store",
      "cache-status": cacheStatus,
      age: String(age),
    },
  };
}

/**
 * The record's freshness in whole seconds, from when the origin last gave or confirmed it (RFC 9111 4.2.3):
 * `life` its whole freshness lifetime (Cache-Control max-age), `age` how much of it is used (Age), `ttl` what is
 * left. A cache computes what is left as max-age minus Age, so max-age is the whole life, never what is left:
 * sending the remainder with an Age counts the age twice (a 60 s record 35 s old would be stale at once).
 */
export function freshnessOf(record: ResourceRecord, now: number): { life: number; age: number; ttl: number } {
  const since = record.validatedAt ?? record.createdAt;
  const life = Math.max(0, Math.floor((record.expiresAt - since) / 1000));
  const age = Math.min(life, Math.max(0, Math.floor((now - since) / 1000)));
  return { life, age, ttl: Math.max(0, Math.floor((record.expiresAt - now) / 1000)) };
}

/** A GET whose If-None-Match names the current answer gets 304 (only safe methods can: RFC 9110 13.1.2). */
export function notModified(method: string, ifNoneMatch: string | undefined, etag: string): boolean {
  return (method === "GET" || method === "HEAD") && etagMatches(ifNoneMatch, etag);
}
