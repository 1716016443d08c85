/**
 * Freshness on request (issue 25 item 2): `maxAge` bounds how old a record may be, counted from when the
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

/** Whether a caller's maxAge (seconds) rules the record out; no maxAge accepts any unexpired record. */
export function tooOldFor(record: ResourceRecord, maxAgeSeconds: number | undefined, now = Date.now()): boolean {
  return maxAgeSeconds !== undefined && recordAgeMs(record, now) >= maxAgeSeconds * 1000;
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
 * Asks the origin whether the record's file changed. `unchanged`: it answered 304. Otherwise the status it
 * answered (a record without validators cannot be checked: `undefined`, treated as changed).
 */
export async function checkOrigin(record: ResourceRecord, config: Config): Promise<{ unchanged: boolean; upstreamStatus?: number }> {
  const validators = validatorsOf(record);
  if (Object.keys(validators).length === 0 || record.provider) return { unchanged: false };
  const policy = fetchPolicy(config, new OriginBudget());
  const { response } = await safeFetch(record.probe.finalUrl, { headers: { ...validators, range: "bytes=0-0" } }, policy);
  await response.body?.cancel().catch(() => {});
  return { unchanged: response.status === 304, upstreamStatus: response.status };
}
