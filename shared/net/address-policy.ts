/**
 * SSRF address policy. A fetch made on a user's behalf must not reach the service's own network: loopback,
 * private and link-local ranges, cloud metadata endpoints, or anything else that is not globally routable
 * unicast. IPv6 forms that carry an IPv4 destination (mapped, compatible, NAT64, 6to4, Teredo) are judged
 * by that IPv4, since that is where the packets end up. Pure functions: the Worker (after DNS over HTTPS)
 * and the media runner (on the address it actually dials) both call them.
 */
import type ipaddr from "ipaddr.js";
import { isAllowlisted, type Allowlist } from "./allowlist.ts";
import { deniedHostnameReason } from "./denied-hostnames.ts";
import { deniedRangeOf } from "./denied-ranges.ts";
import { embeddedIpv4 } from "./embedded-ipv4.ts";
import { parseIpLiteral, type IpAddress } from "./ip-literal.ts";

export type AddressDecision = { allowed: true } | { allowed: false; reason: string };

export type HostClassification =
  | { type: "ip"; ip: string; decision: AddressDecision }
  /** ip has no brackets. Allowed for a hostname means "may be resolved": check every resolved address. */
  | { type: "hostname"; hostname: string; decision: AddressDecision };

const allowed: AddressDecision = { allowed: true };

function denied(reason: string): AddressDecision {
  return { allowed: false, reason };
}

/** Judges a parsed address by the ranges alone (no allow-list). */
function judgeAddress(address: IpAddress, shown: string): AddressDecision {
  if (address.kind() === "ipv6") {
    const embedded = embeddedIpv4(address as ipaddr.IPv6);
    if (embedded) {
      for (const ipv4 of embedded.addresses) {
        const range = deniedRangeOf(ipv4);
        if (range) return denied(`${shown} carries IPv4 ${ipv4.toString()} (${embedded.via}), which is ${range}`);
      }
      if (embedded.prefixIsLocal) return denied(`${shown} uses a local-only prefix (${embedded.via}, RFC 8215)`);
      return allowed;
    }
  }
  const range = deniedRangeOf(address);
  return range ? denied(`${shown} is ${range}`) : allowed;
}

/**
 * Decides whether a connection to ip:port may be made. ip is a literal as DNS or a socket gives it:
 * a strict dotted quad, or IPv6 (brackets and a zone are accepted). An allow-listed ip:port is allowed.
 */
export function checkIpAddress(ip: string, port: number, allowlist: Allowlist): AddressDecision {
  const address = parseIpLiteral(ip);
  if (!address) return denied(`"${ip}" is not a strict IPv4 dotted quad or IPv6 address`);
  if (isAllowlisted(ip, port, allowlist)) return allowed;
  return judgeAddress(address, ip);
}

const defaultPorts: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/** The port the URL connects to: the explicit one, else the scheme's default (80 or 443). */
export function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  const port = defaultPorts[url.protocol];
  if (port === undefined) throw new Error(`no default port for scheme ${url.protocol}`);
  return port;
}

/**
 * Classifies a WHATWG URL's host. The URL parser has already turned decimal, octal, hex and short IPv4
 * forms ("2130706433", "0x7f.1", "0177.0.0.1", "127.1") into dotted quads, lowercased names and applied
 * IDNA, and the host it exposes is the one connected to (userinfo tricks like "a.com@127.0.0.1" do not
 * matter). Only http and https are judged: other schemes keep opaque, unnormalised hosts.
 */
export function classifyUrlHost(url: URL, allowlist: Allowlist): HostClassification {
  const hostname = url.hostname;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { type: "hostname", hostname, decision: denied(`scheme ${url.protocol} is not fetched`) };
  }
  const address = parseIpLiteral(hostname);
  if (address) {
    const ip = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
    return { type: "ip", ip, decision: checkIpAddress(ip, effectivePort(url), allowlist) };
  }
  const reason = deniedHostnameReason(hostname);
  return { type: "hostname", hostname, decision: reason ? denied(`${hostname} is refused: ${reason}`) : allowed };
}
