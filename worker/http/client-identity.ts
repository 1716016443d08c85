/**
 * Who the caller is, as far as the service can trust it: the key of its rate limit, its Idempotency-Key slots
 * and the media runner's per-caller share. A header is believed only where something the operator controls
 * wrote it (CLIENT_IP_SOURCE, worker/config/config.ts; SECURITY.md "Who the caller is"):
 *
 * - `cloudflare`: CF-Connecting-IP. Cloudflare's edge sets it on every request and overwrites one the client
 *   sent, so it is the connection's address there. Nowhere else: wrangler dev keeps a client's own header.
 * - `forwarded`: X-Forwarded-For written by proxies of TRUSTED_PROXIES in front of the Worker; the entry nearest
 *   to the Worker that is not one of those proxies is the caller (what the outermost trusted proxy saw). The
 *   Worker must be reachable only through them.
 * - `none` (the default): no caller is identified (the runtime gives a Worker no peer address outside Cloudflare).
 *
 * The address is normalised (one spelling per address, IPv4-mapped IPv6 as IPv4); anything that is not an
 * address identifies no one.
 */
import { getConfig, type Config } from "../config/config.ts";
import { parseIpLiteral, withoutIpv4Mapping, type IpAddress } from "../../shared/net/ip-literal.ts";

/** Longest X-Forwarded-For read: a chain of proxies never needs more; a longer one is a client's padding. */
export const maxForwardedForChars = 2048;

function normalised(raw: string | null | undefined): string | undefined {
  if (!raw) return undefined;
  const address = parseIpLiteral(raw.trim());
  return address ? withoutIpv4Mapping(address).toString() : undefined;
}

/** TRUSTED_PROXIES as address ranges (single addresses as full-length prefixes). */
function trustedRanges(config: Config): [IpAddress, number][] {
  const ranges: [IpAddress, number][] = [];
  for (const entry of config.TRUSTED_PROXIES.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [text, bits] = entry.split("/");
    const address = parseIpLiteral(text ?? "");
    if (!address) continue; // the schema refuses such entries; nothing here trusts a typo
    const plain = withoutIpv4Mapping(address);
    ranges.push([plain, bits === undefined ? (plain.kind() === "ipv4" ? 32 : 128) : Number(bits)]);
  }
  return ranges;
}

function isTrusted(address: IpAddress, ranges: [IpAddress, number][]): boolean {
  return ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** The caller named by X-Forwarded-For, walking from the Worker outwards past the trusted proxies. */
function forwardedClient(header: string | null, config: Config): string | undefined {
  if (!header || header.length > maxForwardedForChars) return undefined;
  const ranges = trustedRanges(config);
  const hops = header.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const parsed = parseIpLiteral(hops[i]!.trim());
    if (!parsed) return undefined; // a hop that is no address: nothing left of it can be trusted
    const address = withoutIpv4Mapping(parsed);
    if (!isTrusted(address, ranges)) return address.toString();
  }
  return undefined;
}

/** The caller's address when the deployment can vouch for it; undefined otherwise. */
export function clientAddressOf(request: Request, env: object): string | undefined {
  const config = getConfig(env);
  switch (config.CLIENT_IP_SOURCE) {
    case "cloudflare":
      return normalised(request.headers.get("cf-connecting-ip"));
    case "forwarded":
      return forwardedClient(request.headers.get("x-forwarded-for"), config);
    default:
      return undefined;
  }
}

/** The rate limit's key: the caller's address, or one bucket shared by every caller the service cannot identify. */
export function clientKey(request: Request, env: object): string {
  return clientAddressOf(request, env) ?? "unidentified";
}
