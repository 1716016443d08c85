import ipaddr from "ipaddr.js";

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Parses an IP literal as DNS answers and sockets give it: a strict dotted quad, or IPv6 optionally in
 * brackets and with a zone ("fe80::1%eth0"). Returns null for anything else. Loose IPv4 forms
 * ("0177.0.0.1", "127.1", "0x7f.1") are refused on purpose: inet_aton-style parsers read them differently,
 * and only the WHATWG URL parser is trusted to canonicalise them (before this is ever called).
 */
export function parseIpLiteral(raw: string): IpAddress | null {
  // Brackets are only ever IPv6 syntax (URL hosts, "[::1]:8080").
  const bracketed = raw.startsWith("[") && raw.endsWith("]");
  const text = bracketed ? raw.slice(1, -1) : raw;
  if (!text.includes(":")) {
    return !bracketed && ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
  }
  return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : null;
}

/** Treats ::ffff:a.b.c.d as a.b.c.d: dual-stack sockets report IPv4 peers in that form. */
export function withoutIpv4Mapping(address: IpAddress): IpAddress {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}
