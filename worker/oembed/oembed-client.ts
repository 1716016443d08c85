import { z } from "zod";
import type { Config } from "../config/config.ts";
import { fetchPolicy, readCapped, safeFetch, type OriginBudget } from "../fetch/index.ts";

/** The oEmbed response fields we keep (oEmbed 1.0 section 2.3.4); anything else is dropped. */
export const OembedData = z.object({
  type: z.string().optional(),
  version: z.union([z.string(), z.number()]).optional(),
  title: z.string().optional(),
  author_name: z.string().optional(),
  author_url: z.string().optional(),
  provider_name: z.string().optional(),
  provider_url: z.string().optional(),
  thumbnail_url: z.string().optional(),
  thumbnail_width: z.union([z.number(), z.string()]).optional(),
  thumbnail_height: z.union([z.number(), z.string()]).optional(),
  width: z.union([z.number(), z.string(), z.null()]).optional(),
  height: z.union([z.number(), z.string(), z.null()]).optional(),
  html: z.string().optional(),
  duration: z.number().optional(),
});
export type OembedData = z.infer<typeof OembedData>;

export type OembedOutcome =
  | { kind: "ok"; data: OembedData }
  | { kind: "not-embeddable"; status: number }
  | { kind: "not-found" }
  | { kind: "failed"; reason: string };

const maxOembedBytes = 1024 * 1024;

/** Endpoint with OEMBED_BASE_URL applied: `https://www.youtube.com/oembed` -> `${base}/www.youtube.com/oembed`. */
export function oembedEndpoint(endpoint: string, config: Config): string {
  if (!config.OEMBED_BASE_URL) return endpoint;
  const original = new URL(endpoint);
  return `${config.OEMBED_BASE_URL.replace(/\/$/, "")}/${original.host}${original.pathname}${original.search}`;
}

/**
 * GETs an oEmbed document through the safe fetcher. Never throws: the outcome says what happened. `budget`: the
 * inspection's origin budget when the page itself named the endpoint (discovery).
 */
export async function fetchOembed(requestUrl: string, config: Config, budget?: OriginBudget): Promise<OembedOutcome> {
  const policy = fetchPolicy(config, budget);
  const deadline = policy.deadline;
  try {
    const { response } = await safeFetch(requestUrl, { headers: { accept: "application/json" } }, policy);
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      return { kind: "not-embeddable", status: response.status };
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return { kind: "not-found" };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: "failed", reason: `oEmbed endpoint answered ${response.status}` };
    }
    const bytes = await readCapped(response, maxOembedBytes, deadline);
    const parsed = OembedData.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    if (!parsed.success) return { kind: "failed", reason: "oEmbed endpoint sent an invalid document" };
    return { kind: "ok", data: parsed.data };
  } catch (err) {
    return { kind: "failed", reason: err instanceof Error ? err.message : String(err) };
  }
}

export function oembedRequestUrl(endpoint: string, mediaUrl: string): string {
  const url = new URL(endpoint);
  url.searchParams.set("url", mediaUrl);
  url.searchParams.set("format", "json");
  return url.href;
}

