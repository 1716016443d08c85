import { checkIpAddress, classifyUrlHost, effectivePort, type Allowlist } from "../../shared/net/index.ts";
import { errors } from "../errors/api-error.ts";
import { resolveHost } from "./doh-resolver.ts";

/**
 * Refuses a URL whose host is, or resolves to, a denied address. Runs before every hop's connection and
 * returns the checked addresses: the connection is made to one of them, never to the name again.
 * Every resolved address must pass: one private answer among public ones is enough to refuse (DNS answers
 * can be rotated between our check and the runtime's own lookup).
 */
export async function assertPublicTarget(
  url: URL,
  allowlist: Allowlist,
  resolverUrl: string,
  signal: AbortSignal,
): Promise<string[]> {
  const port = effectivePort(url);
  const host = classifyUrlHost(url, allowlist);
  if (!host.decision.allowed) throw errors.ssrfBlocked(`${url.hostname}: ${host.decision.reason}`);
  if (host.type === "ip") return [host.ip];
  const addresses = await resolveHost(resolverUrl, host.hostname, signal);
  if (addresses.length === 0) throw errors.dns(host.hostname);
  for (const address of addresses) {
    const decision = checkIpAddress(address, port, allowlist);
    if (!decision.allowed) throw errors.ssrfBlocked(`${host.hostname} -> ${address}: ${decision.reason}`);
  }
  return addresses;
}
