import type { Config } from "../config/config.ts";
import { errors } from "../errors/api-error.ts";
import { readHead, safeFetch, type FetchPolicy } from "../fetch/index.ts";
import { refusalOf } from "../fetch/refusal.ts";
import type { ProbeResult } from "../../shared/schemas/record.ts";
import { RangeByteSource } from "../bytes/byte-source.ts";
import { parseContentRange } from "../../shared/bytes/content-range.ts";
import { filenameFrom } from "./filename.ts";
import { probeHeadBytes, probeSuffixBytes } from "./head-size.ts";
import { sniffMime } from "./sniff-mime.ts";
import { probeSuffixPatienceMs } from "../config/limits.ts";

export interface ProbeOutcome {
  probe: ProbeResult;
  /** The first bytes of the file, as read. */
  head: Uint8Array;
  /** Random access to the rest, through Range requests. */
  source: RangeByteSource;
}

/**
 * One Range GET of the first PROBE_HEAD_BYTES (16 KiB, one TCP initial window; 4 KiB for URLs named like
 * front-loaded audio): enough to sniff the type, read the size from Content-Range (or Content-Length), the
 * filename, and whether the origin really serves ranges (206). Never the whole file. Readers that need more
 * ask the returned source for exactly that.
 */
export async function probeUrl(url: string, policy: FetchPolicy, config: Config): Promise<ProbeOutcome> {
  const wanted = probeHeadBytes(url, config);
  const suffixBytes = probeSuffixBytes(url);
  // The head always leads its own exchange and the suffix pipelines behind it (one round trip for both). The head
  // never waits behind the suffix: an origin that ignores pipelined requests would hold it to the deadline.
  const headRequest = safeFetch(url, { headers: { range: `bytes=0-${wanted - 1}` } }, policy);
  const suffix = suffixBytes > 0 ? withPatience(readSuffix(url, suffixBytes, policy), probeSuffixPatienceMs) : undefined;
  const { response, finalUrl, redirects } = await headRequest.catch(async (err: unknown) => {
    await suffix;
    throw err;
  });
  if (response.status === 404) {
    await response.body?.cancel();
    await suffix;
    throw errors.notFound();
  }
  if (response.status !== 200 && response.status !== 206) {
    const refusal = await refusalOf(response, policy.deadline);
    await suffix;
    throw refusal;
  }
  const streamable = response.status === 206;
  const sizeBytes = streamable
    ? parseContentRange(response.headers.get("content-range"))?.size
    : declaredLength(response);
  if (sizeBytes !== undefined && sizeBytes > config.MAX_SOURCE_BYTES) {
    await response.body?.cancel();
    await suffix;
    throw errors.tooLarge(config.MAX_SOURCE_BYTES);
  }
  // An origin without Range streams the whole file: keep more of what arrives anyway (nothing past it can be asked for).
  const keep = streamable ? wanted : Math.max(wanted, config.PROBE_STREAM_HEAD_BYTES);
  const head = await readHead(response, keep, policy.deadline);
  const declaredMime = response.headers.get("content-type")?.split(";")[0]?.trim() || undefined;
  const mime = await sniffMime(head, declaredMime);
  // A 200 that ends before our limit is the whole file: its size is known even without Content-Length.
  const knownSize = sizeBytes ?? (!streamable && head.byteLength < keep ? head.byteLength : undefined);
  const source = new RangeByteSource(finalUrl, knownSize, streamable, policy, config.MAX_TAIL_BYTES, config.PROBE_READ_MIN_BYTES);
  source.addSegment(0, head);
  // The suffix counts as one of the source's requests; kept only where it is a range of this same file.
  if (suffix) {
    source.expectSuffix(suffix.then((got) => (got && streamable && knownSize !== undefined && got.size === knownSize && finalUrl === got.finalUrl
      ? { offset: got.offset, bytes: got.bytes } : undefined)));
  }
  const probe: ProbeResult = {
    finalUrl,
    status: response.status,
    mime,
    declaredMime,
    sizeBytes: knownSize,
    filename: filenameFrom(response.headers.get("content-disposition"), finalUrl),
    streamable,
    bytesFetched: head.byteLength,
    redirects,
    headers: visibleHeaders(response.headers),
  };
  return { probe, head, source };
}

/**
 * `bytes=-n`: the file's last n bytes, sent with the head without waiting for it (a suffix needs no size).
 * Never throws: a refused or odd answer is a miss, and readers fetch what they need as they would have. A
 * redirect is not followed (the suffix is only worth it sent with the head): the readers read the final URL's tail.
 */
async function readSuffix(url: string, bytes: number, policy: FetchPolicy): Promise<{ offset: number; bytes: Uint8Array; size: number; finalUrl: string } | undefined> {
  try {
    const { response, finalUrl } = await safeFetch(url, { headers: { range: `bytes=-${bytes}` }, pipeline: "prefetch", followRedirects: false }, policy);
    const range = response.status === 206 ? parseContentRange(response.headers.get("content-range")) : undefined;
    if (!range || range.start === undefined || range.size === undefined || range.end !== range.size - 1) {
      await response.body?.cancel();
      return undefined;
    }
    const got = await readHead(response, range.end - range.start + 1, policy.deadline);
    return { offset: range.start, bytes: got, size: range.size, finalUrl };
  } catch {
    return undefined;
  }
}

/** `read`'s answer, or undefined once `ms` have passed without one (the read itself is left to end on its own). */
function withPatience<T>(read: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const patience = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([read, patience]).finally(() => clearTimeout(timer));
}

function declaredLength(response: Response): number | undefined {
  // A compressed body's Content-Length is not the file's size.
  if (response.headers.get("content-encoding")) return undefined;
  const value = Number(response.headers.get("content-length"));
  return Number.isSafeInteger(value) && value >= 0 && response.headers.has("content-length") ? value : undefined;
}

/** Final-hop response headers for `expand=rawHeaders`, without cookies. */
function visibleHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  return out;
}
