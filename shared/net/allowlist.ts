import { parseIpLiteral, withoutIpv4Mapping, type IpAddress } from "./ip-literal.ts";

/**
 * SSRF_ALLOWLIST: addresses the SSRF policy lets through although they are private. For tests and local
 * development only (reaching a loopback origin); production leaves it empty.
 */
export interface Allowlist {
  readonly entries: readonly AllowlistEntry[];
}

export interface AllowlistEntry {
  /** The entry as written, for logs. */
  readonly source: string;
  /** A single address is kept as a full-length prefix. */
  readonly range: [IpAddress, number];
  /** Undefined: every port. */
  readonly port?: number;
}

export const emptyAllowlist: Allowlist = { entries: [] };

const allowlistVariable = "SSRF_ALLOWLIST";
const maxPort = 65_535;

function invalidEntry(entry: string, expected: string): Error {
  return new Error(
    `${allowlistVariable}: invalid entry "${entry}" (${expected}); expected comma-separated IP, IP:PORT ` +
      `([IPv6]:PORT for IPv6) or CIDR entries, e.g. "127.0.0.1:8080,[::1]:8080,10.0.0.0/8"`,
  );
}

function parsePort(entry: string, text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= maxPort)) throw invalidEntry(entry, `port must be 1-${maxPort}`);
  return port;
}

function parseAddress(entry: string, text: string): IpAddress {
  const address = parseIpLiteral(text);
  if (!address) throw invalidEntry(entry, "not an IPv4 dotted quad or IPv6 address");
  return withoutIpv4Mapping(address);
}

function fullPrefix(address: IpAddress): [IpAddress, number] {
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

function parseEntry(entry: string): AllowlistEntry {
  // Zone ids name an interface of this host, not an address: never meaningful in a shared allow-list.
  if (entry.includes("%")) throw invalidEntry(entry, "zone ids (%) are not accepted");
  if (entry.includes("/")) {
    const parts = entry.split("/");
    if (parts.length !== 2) throw invalidEntry(entry, "one prefix length only");
    const [addressText = "", bitsText = ""] = parts;
    const parsed = parseIpLiteral(addressText);
    // "::ffff:127.0.0.1/24" would silently become an IPv4 /24: the prefix length's meaning is ambiguous.
    if (parsed && parsed.kind() === "ipv6" && withoutIpv4Mapping(parsed).kind() === "ipv4") {
      throw invalidEntry(entry, "write an IPv4-mapped range as IPv4 CIDR");
    }
    const address = parseAddress(entry, addressText);
    const maxBits = address.kind() === "ipv4" ? 32 : 128;
    const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
    if (!(bits >= 0 && bits <= maxBits)) throw invalidEntry(entry, `prefix length must be 0-${maxBits}`);
    return { source: entry, range: [address, bits] };
  }
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const range = fullPrefix(parseAddress(entry, `[${bracketed[1] ?? ""}]`));
    return bracketed[2] === undefined
      ? { source: entry, range }
      : { source: entry, range, port: parsePort(entry, bracketed[2]) };
  }
  const colons = entry.split(":").length - 1;
  if (colons === 1) {
    const [addressText = "", portText = ""] = entry.split(":");
    return { source: entry, range: fullPrefix(parseAddress(entry, addressText)), port: parsePort(entry, portText) };
  }
  // No colon: IPv4; two or more: a bare IPv6 address (a port needs brackets).
  return { source: entry, range: fullPrefix(parseAddress(entry, entry)) };
}

/**
 * Parses SSRF_ALLOWLIST. Empty or undefined gives the empty allow-list; a bad entry throws, naming it.
 * `production`: any non-empty allow-list is refused (it exists for tests and local development only).
 */
export function parseAllowlist(raw: string | undefined, options: { production?: boolean } = {}): Allowlist {
  if (options.production && (raw ?? "").trim() !== "") {
    throw new Error(`${allowlistVariable} must be empty in production (it is for tests and local development only)`);
  }
  const entries = (raw ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map(parseEntry);
  return { entries };
}

/** True when ip (a literal, IPv4-mapped IPv6 counts as its IPv4) and port match an allow-list entry. */
export function isAllowlisted(ip: string, port: number, allowlist: Allowlist): boolean {
  if (allowlist.entries.length === 0) return false;
  const parsed = parseIpLiteral(ip);
  if (!parsed) return false;
  const address = withoutIpv4Mapping(parsed);
  return allowlist.entries.some(
    (entry) =>
      entry.range[0].kind() === address.kind() &&
      address.match(entry.range) &&
      (entry.port === undefined || entry.port === port),
  );
}

/** Shown in docs and errors: the allow-list is a test/dev escape hatch. */
export function describeAllowlist(allowlist: Allowlist): string {
  return allowlist.entries.map((entry) => entry.source).join(",") || "(empty)";
}
