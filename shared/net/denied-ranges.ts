import ipaddr from "ipaddr.js";
import type { IpAddress } from "./ip-literal.ts";

/**
 * Address ranges a fetch must never reach: everything that is not globally routable unicast, named so a
 * refusal says why. Cloud metadata endpoints come first so their reason is the specific one.
 * Anything ipaddr.js classifies as other than "unicast" is refused too (see deniedRangeOf), so ranges
 * forgotten here (AS112, AMT, ORCHID, ...) are still covered.
 */
const deniedRangeTable: ReadonlyArray<readonly [name: string, cidr: string]> = [
  // Cloud metadata and platform endpoints reachable from inside a VM or container.
  ["cloud metadata (AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack)", "169.254.169.254/32"],
  ["cloud metadata (AWS ECS task metadata)", "169.254.170.2/32"],
  ["cloud metadata (AWS EKS pod identity)", "169.254.170.23/32"],
  ["cloud metadata (Tencent Cloud)", "169.254.0.23/32"],
  ["cloud metadata (Alibaba Cloud)", "100.100.100.200/32"],
  ["cloud metadata (Azure WireServer)", "168.63.129.16/32"],
  ["cloud metadata (Oracle Cloud legacy)", "192.0.0.192/32"],
  ["cloud metadata (AWS IMDS over IPv6)", "fd00:ec2::254/128"],
  ["cloud metadata (AWS EKS pod identity over IPv6)", "fd00:ec2::23/128"],
  // IPv4 (RFC 6890 special-purpose registry).
  ["unspecified (0.0.0.0/8)", "0.0.0.0/8"],
  ["private (10.0.0.0/8)", "10.0.0.0/8"],
  ["carrier-grade NAT (100.64.0.0/10)", "100.64.0.0/10"],
  ["loopback (127.0.0.0/8)", "127.0.0.0/8"],
  ["link-local (169.254.0.0/16)", "169.254.0.0/16"],
  ["private (172.16.0.0/12)", "172.16.0.0/12"],
  ["IETF protocol assignments (192.0.0.0/24)", "192.0.0.0/24"],
  ["documentation (192.0.2.0/24)", "192.0.2.0/24"],
  ["6to4 relay anycast (192.88.99.0/24)", "192.88.99.0/24"],
  ["private (192.168.0.0/16)", "192.168.0.0/16"],
  ["benchmarking (198.18.0.0/15)", "198.18.0.0/15"],
  ["documentation (198.51.100.0/24)", "198.51.100.0/24"],
  ["documentation (203.0.113.0/24)", "203.0.113.0/24"],
  ["multicast (224.0.0.0/4)", "224.0.0.0/4"],
  ["broadcast (255.255.255.255)", "255.255.255.255/32"],
  ["reserved (240.0.0.0/4)", "240.0.0.0/4"],
  // IPv6 (RFC 6890 and later). Embedded IPv4 forms are unwrapped before this table is consulted.
  ["unspecified (::)", "::/128"],
  ["loopback (::1)", "::1/128"],
  ["discard-only (100::/64)", "100::/64"],
  ["benchmarking (2001:2::/48)", "2001:2::/48"],
  ["documentation (2001:db8::/32)", "2001:db8::/32"],
  ["documentation (3fff::/20)", "3fff::/20"],
  ["unique-local (fc00::/7)", "fc00::/7"],
  ["link-local (fe80::/10)", "fe80::/10"],
  ["site-local (fec0::/10)", "fec0::/10"],
  ["multicast (ff00::/8)", "ff00::/8"],
];

const deniedRanges = deniedRangeTable.map(([name, cidr]) => ({ name, range: ipaddr.parseCIDR(cidr) }));

// IANA allocates global unicast IPv6 only from 2000::/3; everything outside it is special or unassigned.
const globalUnicastIpv6 = ipaddr.IPv6.parseCIDR("2000::/3");

/** Returns the name of the denied range holding the address, or null when it is global unicast. */
export function deniedRangeOf(address: IpAddress): string | null {
  for (const { name, range } of deniedRanges) {
    if (range[0].kind() === address.kind() && address.match(range)) return name;
  }
  const libraryRange = address.range();
  if (libraryRange !== "unicast") return `special-purpose (${libraryRange})`;
  if (address.kind() === "ipv6" && !address.match(globalUnicastIpv6)) return "outside IPv6 global unicast (2000::/3)";
  return null;
}
