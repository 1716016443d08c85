import type { Config } from "../config/config.ts";
import type { ProviderRecord } from "../../shared/schemas/record.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { headComplete, maxHtmlHeadBytes, readHtmlHead, type HtmlHeadFacts } from "../probe/html-head.ts";
import { fetchOembed, type OembedData } from "../oembed/oembed-client.ts";
import { budgetOf, safeFetch, type FetchPolicy, type OriginBudget } from "../fetch/index.ts";
import { decodeEntities, scanHtml } from "../probe/html-scan.ts";

/**
 * Reads the page only up to </head> (at most maxHtmlHeadBytes), through Range requests when needed. An origin
 * without Range support (most dynamic pages) gets one plain GET instead, read until </head> and then cancelled,
 * when `policy` is given: otherwise a head longer than the probe's first bytes would never be seen.
 */
export async function readPageHead(head: Uint8Array, source: RangeByteSource, baseUrl: string, policy?: FetchPolicy): Promise<HtmlHeadFacts> {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let bytes = head;
  let html = decoder.decode(bytes);
  let rangeRefused = false;
  while (!headComplete(html) && bytes.byteLength < maxHtmlHeadBytes && (source.size === undefined || bytes.byteLength < source.size)) {
    const more = await source.read(bytes.byteLength, Math.min(64 * 1024, maxHtmlHeadBytes - bytes.byteLength)).catch(() => undefined);
    if (!more) rangeRefused = true;
    if (!more || more.byteLength === 0) break;
    const joined = new Uint8Array(bytes.byteLength + more.byteLength);
    joined.set(bytes);
    joined.set(more, bytes.byteLength);
    bytes = joined;
    html = decoder.decode(bytes);
  }
  if (rangeRefused && policy && !headComplete(html) && bytes.byteLength < maxHtmlHeadBytes) {
    const whole = await readHeadByGet(source, policy).catch(() => undefined);
    if (whole && whole.byteLength > bytes.byteLength) html = decoder.decode(whole);
  }
  return readHtmlHead(html, baseUrl);
}

/** One GET of the page, streamed only until </head> (or maxHtmlHeadBytes), then cancelled. */
async function readHeadByGet(source: RangeByteSource, policy: FetchPolicy): Promise<Uint8Array | undefined> {
  const { response } = await safeFetch(source.url, {}, policy);
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    return undefined;
  }
  const budget = budgetOf(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let tail = "";
  try {
    while (total < maxHtmlHeadBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      budget?.spendBytes(value.byteLength);
      const chunk = value.subarray(0, maxHtmlHeadBytes - total);
      chunks.push(chunk);
      total += chunk.byteLength;
      // Only the new text (plus a few characters that may start "</head") needs looking at.
      const text = tail + decoder.decode(chunk, { stream: true });
      if (headComplete(text)) break;
      tail = text.slice(-16);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  source.addSegment(0, bytes);
  return bytes;
}

/** oEmbed fields holding URLs: kept only when they are http(s). */
const oembedUrlFields = ["author_url", "provider_url", "thumbnail_url"] as const;

/**
 * A discovered oEmbed document is the page's own claim about itself, so it is untrusted:
 * `html` is never kept (only an https iframe src taken from it becomes the embed URL), the self-declared
 * `provider_name` is dropped (the provider is named `oembed:<page host>`), and non-http(s) URLs are dropped.
 */
export function sanitizeDiscoveredOembed(data: OembedData): OembedData {
  const { html: _html, provider_name: _name, ...rest } = data;
  const clean: OembedData = { ...rest };
  for (const field of oembedUrlFields) {
    const value = clean[field];
    if (value !== undefined && !isHttpUrl(value)) delete clean[field];
  }
  return clean;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/** The https src of the first iframe in an oEmbed html value, or undefined. */
function httpsIframeSrc(html: string | undefined, base: string): string | undefined {
  const src = html ? firstIframeSrc(html) : undefined;
  if (!src) return undefined;
  try {
    const parsed = new URL(decodeEntities(src), base);
    return parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Generic oEmbed discovery (oEmbed spec section 4) for pages of providers not in the registry: follow the
 * page's own json+oembed link through the safe fetcher and describe the page as an embed. Nothing of it is
 * verified: the projection reports providerVerified/safeEmbed only for registry providers.
 */
export async function discoverProvider(
  pageUrl: string,
  oembedUrl: string,
  config: Config,
  budget?: OriginBudget,
): Promise<{ provider: ProviderRecord; oembed: OembedData } | undefined> {
  const outcome = await fetchOembed(oembedUrl, config, budget);
  if (outcome.kind !== "ok") return undefined;
  const raw = outcome.data;
  const iframeSrc = httpsIframeSrc(raw.html, pageUrl);
  const data = sanitizeDiscoveredOembed(raw);
  const name = `oembed:${new URL(pageUrl).hostname}`;
  const width = Number(data.width) > 0 ? Math.round(Number(data.width)) : 640;
  const height = Number(data.height) > 0 ? Math.round(Number(data.height)) : 360;
  return {
    oembed: data,
    provider: {
      name,
      // Self-declared by the page, not matched by our registry.
      confidence: iframeSrc ? 0.7 : 0.5,
      detectionMethod: "oembed-discovery",
      id: pageUrl,
      canonicalUrl: pageUrl,
      embedUrl: iframeSrc ?? pageUrl,
      semanticType: data.type === "audio" ? "embedded-audio" : "embedded-video",
      ...(data.thumbnail_url ? { thumbnailUrl: data.thumbnail_url } : {}),
      oembed: { endpoint: oembedUrl, url: pageUrl },
      iframe: {
        allow: "autoplay; encrypted-media; fullscreen; picture-in-picture",
        sandbox: "allow-scripts allow-same-origin allow-presentation allow-popups",
        referrerPolicy: "strict-origin-when-cross-origin",
        width,
        height,
      },
      capabilities: { autoplay: false, timestamps: false, playlists: false, responsive: false, fullscreen: true, requiresParentHost: false },
    },
  };
}

/** The src of the first <iframe> in an oEmbed `html` value, read by the linear scanner (the html is untrusted). */
export function firstIframeSrc(html: string): string | undefined {
  let src: string | undefined;
  scanHtml(html.slice(0, 64 * 1024), {
    tag(tag) {
      if (tag.name !== "iframe") return;
      src = tag.attrs.get("src") || undefined;
      return "stop";
    },
  });
  return src;
}
