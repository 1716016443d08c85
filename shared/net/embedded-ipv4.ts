import ipaddr from "ipaddr.js";

/** An IPv4 address carried inside an IPv6 one, and the mechanism that carries it. */
export interface EmbeddedIpv4 {
  /** Name of the embedding, for reasons in decisions ("ipv4Mapped", "6to4", "teredo", ...). */
  via: string;
  /** Every IPv4 address the packet could end up at; all of them must be acceptable. */
  addresses: ipaddr.IPv4[];
  /** True when the IPv6 prefix itself is not globally routable, whatever the IPv4 inside. */
  prefixIsLocal: boolean;
}

type Parts = readonly number[];

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function lowIpv4(parts: Parts): ipaddr.IPv4 {
  return ipv4From(parts[6] ?? 0, parts[7] ?? 0);
}

/** Embeddings that tunnel or translate to an IPv4 destination, most specific first. */
const embeddings: ReadonlyArray<{
  via: string;
  prefix: [ipaddr.IPv6, number];
  extract: (parts: Parts) => ipaddr.IPv4[];
  prefixIsLocal?: boolean;
}> = [
  // RFC 4291 2.5.5.2: ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d through the local stack.
  { via: "ipv4Mapped", prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0/96"), extract: (p) => [lowIpv4(p)] },
  // RFC 6145 (SIIT) IPv4-translated addresses ::ffff:0:a.b.c.d.
  { via: "ipv4Translated", prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96"), extract: (p) => [lowIpv4(p)] },
  // RFC 6052 NAT64 well-known prefix.
  { via: "nat64", prefix: ipaddr.IPv6.parseCIDR("64:ff9b::/96"), extract: (p) => [lowIpv4(p)] },
  // RFC 8215 local-use NAT64 prefix: the translator is inside the network, so the prefix is never public.
  // The IPv4 is read from the /96 layout to give a precise reason when it is private.
  {
    via: "nat64LocalUse",
    prefix: ipaddr.IPv6.parseCIDR("64:ff9b:1::/48"),
    extract: (p) => [lowIpv4(p)],
    prefixIsLocal: true,
  },
  // RFC 3056 6to4: 2002:AABB:CCDD::/48 is routed to the IPv4 relay AA.BB.CC.DD.
  { via: "6to4", prefix: ipaddr.IPv6.parseCIDR("2002::/16"), extract: (p) => [ipv4From(p[1] ?? 0, p[2] ?? 0)] },
  // RFC 4380 Teredo: 2001:0:SERVER:flags:port:~CLIENT; the client's public IPv4 is stored inverted.
  {
    via: "teredo",
    prefix: ipaddr.IPv6.parseCIDR("2001::/32"),
    extract: (p) => [ipv4From(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff), ipv4From(p[2] ?? 0, p[3] ?? 0)],
  },
];

// RFC 4291 2.5.5.1 (deprecated) IPv4-compatible ::a.b.c.d; :: and ::1 are unspecified and loopback instead.
const ipv4Compatible = ipaddr.IPv6.parseCIDR("::/96");
const unspecifiedOrLoopback = ipaddr.IPv6.parseCIDR("::/127");

/** Returns the IPv4 hidden in an IPv6 address, or null when there is none. */
export function embeddedIpv4(address: ipaddr.IPv6): EmbeddedIpv4 | null {
  for (const embedding of embeddings) {
    if (address.match(embedding.prefix)) {
      return {
        via: embedding.via,
        addresses: embedding.extract(address.parts),
        prefixIsLocal: embedding.prefixIsLocal ?? false,
      };
    }
  }
  if (address.match(ipv4Compatible) && !address.match(unspecifiedOrLoopback)) {
    return { via: "ipv4Compatible", addresses: [lowIpv4(address.parts)], prefixIsLocal: false };
  }
  return null;
}
