import type { FetchConfig } from "../config/fetch-config.ts";
import { parseAllowlist } from "../../shared/net/index.ts";
import { createDeadline } from "./deadline.ts";
import type { FetchPolicy, OutboundTransport } from "./safe-fetch.ts";
import type { OriginBudget } from "./origin-budget.ts";

/**
 * The outbound policy from configuration, with a fresh deadline for one exchange; `budget`: the inspection's
 * origin budget its requests count against (webhook deliveries have none: they are not origin requests).
 */
export function fetchPolicy(config: FetchConfig, budget?: OriginBudget): FetchPolicy {
  return {
    allowlist: parseAllowlist(config.SSRF_ALLOWLIST, { production: config.ENVIRONMENT === "production" }),
    resolverUrl: config.DOH_RESOLVER_URL,
    maxRedirects: config.MAX_REDIRECTS,
    deadline: createDeadline(config.FETCH_TIMEOUT_MS),
    transport: outboundTransport(config),
    ...(budget ? { budget } : {}),
  };
}

/** The platform's fetch is trusted only in production on Cloudflare; every other mode connects to the checked address. */
export function outboundTransport(config: FetchConfig): OutboundTransport {
  return config.ENVIRONMENT === "production" && config.OUTBOUND_TRANSPORT === "platform" ? "platform" : "pinned";
}
