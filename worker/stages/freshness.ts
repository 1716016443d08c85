/**
 * Freshness on request: `maxAge` bounds how old a record may be, counted from when the
 * origin last gave or confirmed it; and the conditional request that confirms it (If-None-Match /
 * If-Modified-Since from the validators the probe kept), one Range request of one byte.
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { Config } from "../config/config.ts";
import { fetchPolicy, safeFetch, OriginBudget } from "../fetch/index.ts";

/** Milliseconds since the origin last gave or confirmed the record. */
export function recordAgeMs(record: ResourceRecord, now = Date.now()): number {
  return now - (record.validatedAt ?? record.createdAt);
}

/**
 * Whether a caller's maxAge (seconds) rules the record out; no maxAge accepts any unexpired record. Ages are whole
 * seconds, as HTTP's Age: a request's max-age=0 accepts age 0 (RFC 9111 5.2.1.1), i.e. a record the origin gave or
 * confirmed within the last second, so a flood of maxAge=0 callers asks the origin at most once a second.
 */
export function tooOldFor(record: ResourceRecord, maxAgeSeconds: number | undefined, now = Date.now()): boolean {
  return maxAgeSeconds !== undefined && Math.floor(recordAgeMs(record, now) / 1000) > maxAgeSeconds;
}

/** The origin's validators the probe kept (its final answer's ETag and Last-Modified). */
export function validatorsOf(record: ResourceRecord): Record<string, string> {
  const headers = record.probe.headers ?? {};
  return {
    ...(headers.etag ? { "if-none-match": headers.etag } : {}),
    ...(headers["last-modified"] ? { "if-modified-since": headers["last-modified"] } : {}),
  };
}

/**
 * Asks the origin whether the record's file changed. `unchanged`: it answered 304, or (an origin that ignores
 * conditional requests) a 2xx naming the same strong ETag, or without ETags the same Last-Modified. Otherwise the
 * status it answered (a record without validators cannot be checked: `undefined`, treated as changed).
 */
export async function checkOrigin(record: ResourceRecord, config: Config): Promise<{ unchanged: boolean; upstreamStatus?: number }> {
  const validators = validatorsOf(record);
  if (Object.keys(validators).length === 0 || record.provider) return { unchanged: false };
  const policy = fetchPolicy(config, new OriginBudget());
  const { response } = await safeFetch(record.probe.finalUrl, { headers: { ...validators, range: "bytes=0-0" } }, policy);
  await response.body?.cancel().catch(() => {});
  return { unchanged: response.status === 304 || sameValidators(record, response), upstreamStatus: response.status };
}

function sameValidators(record: ResourceRecord, response: Response): boolean {
  if (response.status < 200 || response.status > 299) return false;
  const stored = record.probe.headers ?? {};
  const etag = response.headers.get("etag");
  if (stored.etag || etag) return !!etag && etag === stored.etag && !etag.startsWith("W/");
  const lastModified = response.headers.get("last-modified");
  return !!lastModified && lastModified === stored["last-modified"];
}
