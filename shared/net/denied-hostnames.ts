/**
 * Host names refused before any DNS lookup. Their addresses are checked after resolution anyway; naming
 * them here refuses them even when a resolver (or /etc/hosts on the runner) answers with a public address,
 * and gives a clearer reason.
 */

/** Cloud metadata service names; most resolve to 169.254.169.254 only from inside the provider's network. */
const metadataHostnames: ReadonlySet<string> = new Set([
  "metadata.google.internal", // GCP
  "metadata.goog", // GCP
  "metadata", // GCP short name via search domain
  "instance-data", // AWS EC2 via search domain
  "instance-data.ec2.internal", // AWS EC2
  "metadata.tencentyun.com", // Tencent Cloud (169.254.0.23)
  "metadata.platformequinix.com", // Equinix Metal
  "metadata.packet.net", // Equinix Metal (former Packet)
]);

/** Suffixes of names that never point at the public internet. */
const privateSuffixes: ReadonlyArray<readonly [suffix: string, why: string]> = [
  ["localhost", "loopback name (RFC 6761)"],
  ["local", "multicast DNS name (RFC 6762)"],
  ["internal", "private-use top-level domain (ICANN, 2024)"],
  ["home.arpa", "home network name (RFC 8375)"],
  ["localdomain", "conventional loopback domain"],
  // RFC 6762 Appendix G: top-level names commonly used on private networks, never delegated publicly.
  ["intranet", "private network name (RFC 6762 appendix G)"],
  ["lan", "private network name (RFC 6762 appendix G)"],
  ["corp", "private network name (RFC 6762 appendix G)"],
  ["home", "private network name (RFC 6762 appendix G)"],
  ["private", "private network name (RFC 6762 appendix G)"],
];

/**
 * Returns why a (lowercase, WHATWG-normalised) host name is refused, or null when it may be resolved.
 * One trailing dot (a fully qualified name) is accepted; empty labels are not.
 */
export function deniedHostnameReason(hostname: string): string | null {
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  const labels = name.split(".");
  if (name === "" || labels.some((label) => label === "")) return "malformed host name (empty label)";
  if (metadataHostnames.has(name)) return "cloud metadata host name";
  for (const [suffix, why] of privateSuffixes) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return why;
  }
  // A name without a dot is completed by the resolver's search domains, i.e. a local network name.
  if (labels.length === 1) return "single-label host name (resolved through local search domains)";
  return null;
}
