import type { Config } from "../config.ts";
import { parseAllowlist } from "../../shared/net/index.ts";
import { createDeadline } from "./deadline.ts";
import type { FetchPolicy, OutboundTransport } from "./safe-fetch.ts";

/** The outbound policy from configuration, with a fresh deadline for one exchange. */
export function fetchPolicy(config: Config): FetchPolicy {
  return {
    allowlist: parseAllowlist(config.SSRF_ALLOWLIST, { production: config.ENVIRONMENT === "production" }),
    resolverUrl: config.DOH_RESOLVER_URL,
    maxRedirects: config.MAX_REDIRECTS,
    deadline: createDeadline(config.FETCH_TIMEOUT_MS),
    transport: outboundTransport(config),
  };
}

/** The platform's fetch is trusted only in production on Cloudflare; every other mode connects to the checked address. */
export function outboundTransport(config: Config): OutboundTransport {
  return config.ENVIRONMENT === "production" && config.OUTBOUND_TRANSPORT === "platform" ? "platform" : "pinned";
}
