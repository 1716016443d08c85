/**
 * An undici Agent whose every new connection is vetted at connect time: the host is resolved here, every
 * address is checked against the SSRF policy with the port actually dialled, and only then is a socket
 * opened, to the vetted address. A redirect or a DNS answer cannot slip a private address past the check,
 * and a refused address never sees a connection attempt.
 */
import { isIP } from "node:net";
import { Agent, buildConnector } from "undici";
import { checkIpAddress, type Allowlist } from "../../../shared/net/index.ts";
import { RunnerError } from "../errors.ts";
import type { Resolver } from "./resolver.ts";

export interface SsrfAgentOptions {
  allowlist: Allowlist;
  resolve: Resolver;
  connectTimeoutMs: number;
}

/** Resolves hostname and returns the address to dial, or throws SSRF_BLOCKED if any address is denied. */
export async function vetHost(hostname: string, port: number, options: SsrfAgentOptions): Promise<string> {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = await options.resolve(bare);
    } catch (error) {
      throw new RunnerError("BAD_GATEWAY", `could not resolve ${bare}`, String(error));
    }
    if (addresses.length === 0) throw new RunnerError("BAD_GATEWAY", `${bare} has no addresses`);
  }
  // Every answer must pass, not just the first: a resolver answering with a public and a private
  // address would otherwise let the system pick the private one on a later connection.
  for (const address of addresses) {
    const decision = checkIpAddress(address, port, options.allowlist);
    if (!decision.allowed) {
      throw new RunnerError("SSRF_BLOCKED", "the target resolves to a denied address", `${bare}:${port}: ${decision.reason}`);
    }
  }
  return addresses[0]!;
}

export function createSsrfAgent(options: SsrfAgentOptions): Agent {
  const connector = buildConnector({ timeout: options.connectTimeoutMs });
  return new Agent({
    connect(connectOptions, callback) {
      const { hostname, protocol } = connectOptions;
      const port = Number(connectOptions.port) || (protocol === "https:" ? 443 : 80);
      vetHost(hostname, port, options).then(
        (address) => {
          const servername = protocol === "https:" && !isIP(hostname) ? hostname : undefined;
          connector({ ...connectOptions, hostname: address, ...(servername ? { servername } : {}) }, callback);
        },
        (error: Error) => callback(error, null),
      );
    },
    // Media files are big; pooled keep-alive connections make consecutive Range requests cheap.
    keepAliveTimeout: 4_000,
  });
}
