import type { Allowlist } from "../../shared/net/index.ts";
import { ApiError, errors } from "../errors/api-error.ts";
import { assertPublicTarget } from "./address-guard.ts";
import type { Deadline } from "./deadline.ts";
import { outboundHeaders } from "./outbound-headers.ts";
import { pinnedFetch, type PipelineMode } from "./pinned-http.ts";
import { PinnedConnections } from "./pinned-connections.ts";
import { effectivePort } from "../../shared/net/index.ts";

/**
 * How a checked hop is connected. "pinned": a socket to the address the DoH check approved (every mode but
 * Cloudflare's edge). "platform": the runtime's fetch(), which resolves the name again; only safe where the
 * platform itself cannot reach private networks (Cloudflare Workers), see SECURITY.md.
 */
export type OutboundTransport = "pinned" | "platform";
import { withOriginSlot } from "./origin-limiter.ts";
import { redirectRefusal } from "./refusal.ts";
import { meter, type OriginBudget } from "./origin-budget.ts";
import { toApiError } from "./fetch-error.ts";

export interface FetchPolicy {
  allowlist: Allowlist;
  resolverUrl: string;
  maxRedirects: number;
  deadline: Deadline;
  transport: OutboundTransport;
  /** The inspection's origin budget: every hop and every body byte count against it (absent: webhooks). */
  budget?: OriginBudget;
}

export interface SafeRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** POSTs (webhooks) do not follow redirects: a 3xx is returned as is. */
  followRedirects?: boolean;
  /**
   * A GET that does not depend on the exchange in flight to the same origin (the head and a suffix read sent
   * with it): with the pinned transport it is pipelined on that exchange's connection instead of waiting or
   * opening another; see PipelineMode.
   */
  pipeline?: PipelineMode;
}

export interface SafeResponse {
  response: Response;
  finalUrl: string;
  redirects: number;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * Each policy's keep-alive pool. A policy is made for one inspection (or one webhook delivery) and lives as
 * long as it, so its pool is that caller's alone; held weakly, it goes with the policy.
 */
const pools = new WeakMap<FetchPolicy, PinnedConnections>();

export function connectionsOf(policy: FetchPolicy): PinnedConnections {
  let pool = pools.get(policy);
  if (!pool) pools.set(policy, (pool = new PinnedConnections()));
  return pool;
}

/**
 * The one way the Worker talks to the outside world. Every hop: WHATWG-normalised URL, http(s) only, host
 * checked (and resolved via DoH, every address checked) before connecting, identifying headers stripped,
 * redirects followed by hand and re-checked, the whole exchange bounded by one deadline.
 */
export async function safeFetch(input: string, request: SafeRequest, policy: FetchPolicy): Promise<SafeResponse> {
  const { signal, timeoutMs } = policy.deadline;
  let url = parseTarget(input);
  let redirects = 0;
  try {
    for (;;) {
      const addresses = await assertPublicTarget(url, policy.allowlist, policy.resolverUrl, signal);
      policy.budget?.spendRequest(redirects > 0);
      const init = { method: request.method ?? "GET", headers: outboundHeaders(request.headers), body: request.body, signal };
      const target = url;
      const response = await withOriginSlot(target, signal, () =>
        policy.transport === "pinned"
          ? pinnedFetch(target, addresses[0]!, effectivePort(target), init, connectionsOf(policy), request.pipeline)
          : fetch(target, { ...init, redirect: "manual" }));
      const location = response.headers.get("location");
      if (request.followRedirects === false || !redirectStatuses.has(response.status) || !location) {
        return { response: policy.budget ? meter(response, policy.budget) : response, finalUrl: url.href, redirects };
      }
      await response.body?.cancel();
      if (redirects >= policy.maxRedirects) {
        throw errors.badGateway(`Too many redirects (more than ${policy.maxRedirects}).`, undefined, { reason: "upstream-error" });
      }
      redirects += 1;
      const next = parseTarget(location, url);
      // A hop to a sign-in page or consent wall is the origin refusing, not the content moving.
      const refused = redirectRefusal(url, next, response.status);
      if (refused) throw refused;
      url = next;
    }
  } catch (err) {
    throw toApiError(err, signal, timeoutMs);
  }
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw base ? errors.badGateway("The remote server redirected to an invalid URL.") : errors.invalidUrl("The URL is malformed.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw base
      ? errors.badGateway(`The remote server redirected to a ${url.protocol} URL; only http and https are followed.`)
      : errors.invalidUrl("Only http and https URLs are accepted.");
  }
  if (url.username || url.password) {
    throw base ? errors.badGateway("The remote server redirected to a URL with credentials.") : errors.invalidUrl("URLs with embedded credentials are not accepted.");
  }
  return url;
}
