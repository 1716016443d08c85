import { describe, expect, it } from "vitest";
import {
  checkIpAddress,
  classifyUrlHost,
  effectivePort,
  emptyAllowlist,
  isAllowlisted,
  parseAllowlist,
} from "../../shared/net/index.ts";

const none = emptyAllowlist;

// [address, words the refusal must contain]
const deniedAddresses: ReadonlyArray<readonly [string, string]> = [
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["10.0.0.0", "private"],
  ["10.123.45.67", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.0", "carrier-grade NAT"],
  ["100.100.1.1", "carrier-grade NAT"],
  ["100.127.255.255", "carrier-grade NAT"],
  ["127.0.0.1", "loopback"],
  ["127.0.0.0", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.0.1", "link-local"],
  ["169.254.255.255", "link-local"],
  ["172.16.0.0", "private"],
  ["172.20.10.5", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.1", "IETF protocol"],
  ["192.0.0.255", "IETF protocol"],
  ["192.0.2.0", "documentation"],
  ["192.0.2.255", "documentation"],
  ["192.88.99.1", "6to4 relay"],
  ["192.168.0.1", "private"],
  ["192.168.255.255", "private"],
  ["198.18.0.0", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.200", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["254.255.255.255", "reserved"],
  ["255.255.255.255", "broadcast"],
  // Cloud metadata endpoints get their specific reason.
  ["169.254.169.254", "cloud metadata"],
  ["169.254.170.2", "cloud metadata"],
  ["169.254.170.23", "cloud metadata"],
  ["169.254.0.23", "cloud metadata"],
  ["100.100.100.200", "Alibaba"],
  ["168.63.129.16", "Azure"],
  ["192.0.0.192", "cloud metadata"],
  ["fd00:ec2::254", "cloud metadata"],
  // IPv6.
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["[fe80::abcd%25en0]", "link-local"],
  ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["100::1", "discard"],
  ["2001:db8::1", "documentation"],
  ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001:2:0:ffff::1", "benchmarking"],
  ["2001:10::1", "special-purpose"],
  ["4000::1", "outside IPv6 global unicast"],
  // IPv4 hidden in IPv6 is judged as IPv4.
  ["::ffff:127.0.0.1", "127.0.0.1 (ipv4Mapped), which is loopback"],
  ["::ffff:7f00:1", "127.0.0.1 (ipv4Mapped), which is loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["::ffff:a9fe:a9fe", "169.254.169.254 (ipv4Mapped), which is cloud metadata"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:0:7f00:1", "127.0.0.1 (ipv4Translated)"],
  ["::7f00:1", "127.0.0.1 (ipv4Compatible)"],
  ["::a00:1", "10.0.0.1 (ipv4Compatible)"],
  ["::0.0.0.2", "unspecified"],
  ["64:ff9b::7f00:1", "127.0.0.1 (nat64)"],
  ["64:ff9b::a9fe:a9fe", "cloud metadata"],
  ["64:ff9b::192.168.1.1", "192.168.1.1 (nat64)"],
  ["64:ff9b:1::a00:1", "10.0.0.1 (nat64LocalUse)"],
  ["64:ff9b:1::808:808", "local-only prefix"],
  ["2002:7f00:1::1", "127.0.0.1 (6to4)"],
  ["2002:c0a8:101::1", "192.168.1.1 (6to4)"],
  ["2002:a9fe:a9fe::", "cloud metadata"],
  // Teredo stores the client's IPv4 inverted: ~f5ff:fffe = 10.0.0.1, ~3fff:fdd2 = 192.0.2.45.
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1 (teredo)"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45 (teredo)"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1 (teredo)"],
  // Teredo server inside a private range.
  ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "10.0.0.1 (teredo)"],
];

const allowedAddresses: readonly string[] = [
  "8.8.8.8",
  "1.1.1.1",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700::1111",
  "[2606:4700:4700::1001]",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8",
  "::ffff:101:101",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo: server 65.54.227.120, client 8.8.8.8
];

// Loose IPv4 forms: DNS answers and sockets never produce them, and parsers disagree on their meaning.
const malformedLiterals: readonly string[] = [
  "0177.0.0.1",
  "127.1",
  "2130706433",
  "0x7f.0.0.1",
  "1.2.3.04",
  "256.0.0.1",
  "1.2.3.4.5",
  "",
  "localhost",
  "::ffff:0x7f.1",
  "1:2:3:4:5:6:7:8:9",
  "[127.0.0.1]",
];

describe("checkIpAddress", () => {
  it.each(deniedAddresses)("denies %s (%s)", (ip, words) => {
    const decision = checkIpAddress(ip, 443, none);
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) expect(decision.reason).toContain(words);
  });

  it.each(allowedAddresses)("allows public address %s", (ip) => {
    expect(checkIpAddress(ip, 443, none)).toEqual({ allowed: true });
  });

  it.each(malformedLiterals)("denies %j, which is not a strict IP literal", (ip) => {
    const decision = checkIpAddress(ip, 80, none);
    expect(decision).toEqual({ allowed: false, reason: expect.stringContaining("not a strict") });
  });
});

// [url, expected type, host or ip reported, allowed?]
const urlCases: ReadonlyArray<readonly [string, "ip" | "hostname", string, boolean]> = [
  ["http://2130706433/", "ip", "127.0.0.1", false],
  ["http://0x7f.1/", "ip", "127.0.0.1", false],
  ["http://0x7f000001/", "ip", "127.0.0.1", false],
  ["http://0177.0.0.1/", "ip", "127.0.0.1", false],
  ["http://127.1/", "ip", "127.0.0.1", false],
  ["http://127.0.0.1./", "ip", "127.0.0.1", false],
  ["http://0/", "ip", "0.0.0.0", false],
  ["http://012.0.0.1/", "ip", "10.0.0.1", false],
  ["http://169.254.169.254/latest/meta-data/", "ip", "169.254.169.254", false],
  ["http://0xa9.0xfe.0xa9.0xfe/", "ip", "169.254.169.254", false],
  ["http://example.com@127.0.0.1/", "ip", "127.0.0.1", false],
  ["http://127.0.0.1:80@example.com/", "hostname", "example.com", true],
  ["http://[::1]:8080/", "ip", "::1", false],
  ["http://[0:0:0:0:0:0:0:1]/", "ip", "::1", false],
  ["http://[::ffff:127.0.0.1]/", "ip", "::ffff:7f00:1", false],
  ["http://[::ffff:a9fe:a9fe]/", "ip", "::ffff:a9fe:a9fe", false],
  ["http://[fd00:ec2::254]/", "ip", "fd00:ec2::254", false],
  ["http://[2002:a00:1::]/", "ip", "2002:a00:1::", false],
  ["https://8.8.8.8/", "ip", "8.8.8.8", true],
  ["https://[2606:4700::1111]/", "ip", "2606:4700::1111", true],
  ["http://localhost/", "hostname", "localhost", false],
  ["http://LOCALHOST./", "hostname", "localhost.", false],
  ["http://%6c%6fcalhost/", "hostname", "localhost", false],
  ["http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/", "hostname", "localhost", false],
  ["http://api.localhost/", "hostname", "api.localhost", false],
  ["http://metadata.google.internal/computeMetadata/v1/", "hostname", "metadata.google.internal", false],
  ["http://metadata.google.internal./", "hostname", "metadata.google.internal.", false],
  ["http://metadata.goog/", "hostname", "metadata.goog", false],
  ["http://metadata/", "hostname", "metadata", false],
  ["http://instance-data.ec2.internal/", "hostname", "instance-data.ec2.internal", false],
  ["http://metadata.tencentyun.com/", "hostname", "metadata.tencentyun.com", false],
  ["http://db.internal/", "hostname", "db.internal", false],
  ["http://printer.local/", "hostname", "printer.local", false],
  ["http://router.home.arpa/", "hostname", "router.home.arpa", false],
  ["http://intranet/", "hostname", "intranet", false],
  ["http://fileserver/", "hostname", "fileserver", false],
  ["http://nas./", "hostname", "nas.", false],
  ["http://a..b.com/", "hostname", "a..b.com", false],
  ["https://example.com/video.mp4", "hostname", "example.com", true],
  ["https://Example.COM./video.mp4", "hostname", "example.com.", true],
  ["https://media.example.org:8443/a.png", "hostname", "media.example.org", true],
  ["https://localhost.example.com/", "hostname", "localhost.example.com", true],
];

describe("classifyUrlHost", () => {
  it.each(urlCases)("classifies %s as %s %s (allowed: %s)", (href, type, host, allowed) => {
    const result = classifyUrlHost(new URL(href), none);
    expect(result.type).toBe(type);
    expect(result.type === "ip" ? result.ip : result.hostname).toBe(host);
    expect(result.decision.allowed).toBe(allowed);
  });

  it("refuses schemes other than http and https, whose hosts are not normalised", () => {
    expect(classifyUrlHost(new URL("foo://127.1/"), none).decision.allowed).toBe(false);
    expect(classifyUrlHost(new URL("ftp://example.com/"), none).decision.allowed).toBe(false);
  });

  it("names the refused host and the reason", () => {
    const result = classifyUrlHost(new URL("http://db.internal/"), none);
    expect(result.decision).toEqual({ allowed: false, reason: expect.stringMatching(/db\.internal.*private-use/) });
  });

  it("lets an allow-listed loopback URL through on its port only", () => {
    const allowlist = parseAllowlist("127.0.0.1:8787");
    expect(classifyUrlHost(new URL("http://127.0.0.1:8787/a.png"), allowlist).decision.allowed).toBe(true);
    expect(classifyUrlHost(new URL("http://127.1:8787/a.png"), allowlist).decision.allowed).toBe(true);
    expect(classifyUrlHost(new URL("http://127.0.0.1/a.png"), allowlist).decision.allowed).toBe(false);
    expect(classifyUrlHost(new URL("http://localhost:8787/a.png"), allowlist).decision.allowed).toBe(false);
  });
});

describe("effectivePort", () => {
  it.each([
    ["http://example.com/", 80],
    ["https://example.com/", 443],
    ["http://example.com:8080/", 8080],
    ["https://example.com:443/", 443],
    ["http://[::1]:9000/", 9000],
  ] as const)("%s connects to port %i", (href, port) => {
    expect(effectivePort(new URL(href))).toBe(port);
  });
});

describe("parseAllowlist", () => {
  it("refuses any allow-list in production (issue 15, finding 11)", () => {
    expect(() => parseAllowlist("127.0.0.1:8080", { production: true })).toThrow(/SSRF_ALLOWLIST must be empty in production/);
    expect(parseAllowlist(" ", { production: true }).entries).toEqual([]);
    expect(parseAllowlist("127.0.0.1:8080", { production: false }).entries).toHaveLength(1);
  });

  it("is empty by default", () => {
    expect(parseAllowlist(undefined).entries).toEqual([]);
    expect(parseAllowlist("").entries).toEqual([]);
    expect(parseAllowlist(" , ").entries).toEqual([]);
  });

  it("reads IP, IP:PORT, [IPv6]:PORT, bare IPv6 and CIDR entries", () => {
    const allowlist = parseAllowlist(" 127.0.0.1:8080, 10.1.2.3,[::1]:9000 ,fd00::1, 192.168.0.0/16,[::1] ,fc00::/7");
    expect(allowlist.entries.map((entry) => [entry.range[0].toString(), entry.range[1], entry.port])).toEqual([
      ["127.0.0.1", 32, 8080],
      ["10.1.2.3", 32, undefined],
      ["::1", 128, 9000],
      ["fd00::1", 128, undefined],
      ["192.168.0.0", 16, undefined],
      ["::1", 128, undefined],
      ["fc00::", 7, undefined],
    ]);
  });

  it.each([
    "localhost",
    "127.1",
    "0177.0.0.1",
    "127.0.0.1:0",
    "127.0.0.1:65536",
    "127.0.0.1:http",
    "127.0.0.1:",
    "::1:8080x",
    "[::1]:",
    "[::1]8080",
    "[nope]:80",
    "[127.0.0.1]:80",
    "10.0.0.0/33",
    "10.0.0.0/",
    "fc00::/129",
    "10.0.0.0/8:80",
    "300.0.0.1",
    // Issue 15, finding 11: accepted before as /8, as an IPv4 /24, and with the zone ignored.
    "127.0.0.1/8/32",
    "10.0.0.0/8/",
    "::ffff:127.0.0.1/24",
    "::ffff:7f00:1/120",
    "fe80::1%eth0",
    "[fe80::1%eth0]:80",
    "fe80::%1/64",
  ])("rejects %j with an error naming SSRF_ALLOWLIST and the entry", (entry) => {
    expect(() => parseAllowlist(`127.0.0.1:8080,${entry}`)).toThrow(
      new RegExp(`SSRF_ALLOWLIST.*"${entry.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`),
    );
  });
});

describe("isAllowlisted", () => {
  const allowlist = parseAllowlist("127.0.0.1:8080,[::1]:9000,10.0.0.0/8,fd00::/8");

  it.each([
    ["127.0.0.1", 8080, true],
    ["127.0.0.1", 8081, false],
    ["127.0.0.1", 80, false],
    ["127.0.0.2", 8080, false],
    ["::ffff:127.0.0.1", 8080, true],
    ["::1", 9000, true],
    ["[::1]", 9000, true],
    ["::1", 8080, false],
    ["10.200.0.1", 1, true],
    ["11.0.0.1", 80, false],
    ["fd12::1", 443, true],
    ["fe80::1", 443, false],
    ["127.1", 8080, false],
  ] as const)("%s port %i -> %s", (ip, port, expected) => {
    expect(isAllowlisted(ip, port, allowlist)).toBe(expected);
  });

  it("allows an allow-listed loopback ip:port while other loopback ports stay denied", () => {
    expect(checkIpAddress("127.0.0.1", 8080, allowlist)).toEqual({ allowed: true });
    expect(checkIpAddress("127.0.0.1", 8081, allowlist).allowed).toBe(false);
    expect(checkIpAddress("127.0.0.2", 8080, allowlist).allowed).toBe(false);
    expect(checkIpAddress("169.254.169.254", 80, allowlist).allowed).toBe(false);
  });

  it("does nothing when empty", () => {
    expect(isAllowlisted("127.0.0.1", 8080, emptyAllowlist)).toBe(false);
  });
});
