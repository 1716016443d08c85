// Issue 2 item 4 (SSRF): every denied address form is refused with 403 SSRF_BLOCKED before any connection.
// The connection trap listens on 127.0.0.1:trapPort (not allow-listed); every loopback form below points at
// it, so a single connection that slipped through would show in its counter.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats, trapConnections, trapPort } from "../../../testkit/worker/helpers.ts";

const T = trapPort;

/** [form, why it must be refused]. Every entry must come back 403 SSRF_BLOCKED with the trap untouched. */
const deniedTargets: [string, string][] = [
  // Loopback in every spelling the WHATWG parser accepts.
  [`http://127.0.0.1:${T}/`, "loopback"],
  [`https://127.0.0.1:${T}/`, "loopback over https"],
  [`http://127.0.0.1.:${T}/`, "loopback with a trailing dot"],
  [`http://127.1:${T}/`, "short form a.d"],
  [`http://127.0.1:${T}/`, "short form a.b.d"],
  [`http://2130706433:${T}/`, "decimal integer"],
  [`http://0x7f000001:${T}/`, "hex integer"],
  [`http://017700000001:${T}/`, "octal integer"],
  [`http://0177.0.0.1:${T}/`, "octal first octet"],
  [`http://127.000.000.001:${T}/`, "zero-padded (octal) octets"],
  [`http://0x7f.1:${T}/`, "hex short form"],
  [`http://0x7F.0x0.0x0.0x1:${T}/`, "hex octets"],
  [`http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:${T}/`, "full-width digits (IDNA-mapped to 127.0.0.1)"],
  [`http://127.255.255.254:${T}/`, "end of 127/8"],
  [`http://[::1]:${T}/`, "IPv6 loopback"],
  [`http://[0:0:0:0:0:0:0:1]:${T}/`, "IPv6 loopback, long form"],
  [`http://[::ffff:127.0.0.1]:${T}/`, "IPv4-mapped loopback, dotted"],
  [`http://[::ffff:7f00:1]:${T}/`, "IPv4-mapped loopback, hex"],
  [`http://[::127.0.0.1]:${T}/`, "IPv4-compatible loopback"],
  [`http://[2002:7f00:1::]:${T}/`, "6to4 relay at 127.0.0.1"],
  [`http://[64:ff9b::7f00:1]:${T}/`, "NAT64 of 127.0.0.1"],
  [`http://[64:ff9b:1::7f00:1]:${T}/`, "local-use NAT64 prefix"],
  // Teredo: server 65.54.227.120, client stored inverted: ~7f00:~0001 = 80ff:fffe -> 127.0.0.1.
  [`http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${T}/`, "Teredo client 127.0.0.1"],
  [`http://localhost:${T}/`, "localhost"],
  [`http://LOCALHOST.:${T}/`, "localhost, upper case with a trailing dot"],
  [`http://foo.localhost:${T}/`, "subdomain of localhost"],
  [`http://localhost.localdomain:${T}/`, "localdomain"],
  // Unspecified: connects to the local host on most stacks.
  [`http://0.0.0.0:${T}/`, "unspecified IPv4"],
  [`http://0:${T}/`, "unspecified IPv4, integer"],
  [`http://[::]:${T}/`, "unspecified IPv6"],
  // Private, shared and link-local IPv4.
  [`http://10.0.0.1:${T}/`, "10/8"],
  [`http://10.255.255.254:${T}/`, "10/8, end"],
  [`http://172.16.0.1:${T}/`, "172.16/12"],
  [`http://172.31.255.254:${T}/`, "172.16/12, end"],
  [`http://192.168.0.1:${T}/`, "192.168/16"],
  [`http://192.168.255.254:${T}/`, "192.168/16, end"],
  [`http://100.64.0.1:${T}/`, "CGNAT 100.64/10"],
  [`http://100.127.255.254:${T}/`, "CGNAT, end"],
  [`http://169.254.0.1:${T}/`, "link-local"],
  // Cloud metadata.
  ["http://169.254.169.254/latest/meta-data/", "AWS/GCP/Azure metadata address"],
  ["http://[fd00:ec2::254]/latest/meta-data/", "AWS IPv6 metadata address"],
  ["http://[::ffff:a9fe:a9fe]/latest/meta-data/", "metadata address, IPv4-mapped"],
  ["http://metadata.google.internal/computeMetadata/v1/", "GCP metadata name"],
  ["http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/", "GCP metadata name, upper case, trailing dot"],
  ["http://metadata/computeMetadata/v1/", "single-label metadata name"],
  ["http://instance-data.ec2.internal/latest/", "AWS metadata name"],
  // IPv6 local ranges.
  [`http://[fd00::1]:${T}/`, "unique local fd00::/8"],
  [`http://[fc00::1]:${T}/`, "unique local fc00::/7"],
  [`http://[fe80::1]:${T}/`, "link-local fe80::/10"],
  [`http://[ff02::1]:${T}/`, "IPv6 multicast"],
  // Multicast, broadcast, reserved.
  [`http://224.0.0.1:${T}/`, "multicast"],
  [`http://239.255.255.250:${T}/`, "multicast (SSDP)"],
  [`http://255.255.255.255:${T}/`, "broadcast"],
  [`http://240.0.0.1:${T}/`, "reserved 240/4"],
  // Documentation and benchmarking.
  [`http://192.0.2.10:${T}/`, "TEST-NET-1"],
  [`http://198.51.100.10:${T}/`, "TEST-NET-2"],
  [`http://203.0.113.10:${T}/`, "TEST-NET-3"],
  [`http://198.18.0.1:${T}/`, "benchmarking 198.18/15"],
  [`http://198.19.255.254:${T}/`, "benchmarking, end"],
  [`http://[2001:db8::1]:${T}/`, "IPv6 documentation"],
  // Names that resolve (through the fake DoH zone) to denied addresses.
  [`http://private.test:${T}/`, "DoH A 10.0.0.5"],
  [`http://meta.test/latest/meta-data/`, "DoH A 169.254.169.254"],
  [`http://trap.test:${T}/`, "DoH A 127.0.0.1 (the trap itself)"],
  [`http://TRAP.TEST.:${T}/`, "DoH A 127.0.0.1, upper case with a trailing dot"],
  [`http://v6private.test:${T}/`, "DoH AAAA fd00::1"],
  [`http://mapped.test:${T}/`, "DoH AAAA ::ffff:127.0.0.1"],
  [`http://mixed.test:${T}/`, "DoH A 8.8.8.8 and 192.168.1.1: one private answer is enough"],
  [`http://cgnat.test:${T}/`, "DoH A 100.64.0.1"],
  [`http://linklocal6.test:${T}/`, "DoH AAAA fe80::1"],
  [`http://nat64.test:${T}/`, "DoH AAAA 64:ff9b::a00:1 (NAT64 of 10.0.0.1)"],
];

/** Credentials in the URL are refused as invalid input before any address check. */
const credentialTargets = [
  `http://user@127.0.0.1:${T}/`,
  `http://user:password@localhost:${T}/`,
  `http://example.com@127.0.0.1:${T}/`,
  `http://:secret@[::1]:${T}/`,
];

async function expectNoTrapConnection<R>(run: () => Promise<R>): Promise<R> {
  const before = await trapConnections();
  const result = await run();
  expect(await trapConnections(), "a connection reached the trap").toBe(before);
  return result;
}

describe("SSRF deny table", () => {
  it("has at least 45 forms", () => {
    expect(deniedTargets.length).toBeGreaterThanOrEqual(45);
    expect(new Set(deniedTargets.map(([url]) => url)).size).toBe(deniedTargets.length);
  });

  it.each(deniedTargets)("%s (%s) -> 403 SSRF_BLOCKED, no connection", async (url) => {
    const { status, body } = await expectNoTrapConnection(() => inspect(url, "profile=fast"));
    expect({ status, body }).toMatchObject({ status: 403, body: { status: "error", error: { code: "SSRF_BLOCKED" } } });
    // The public message names no internal detail (resolved address, allow-list).
    expect(body.error.message).not.toMatch(/127\.|10\.0|::|allow/i);
  });

  it.each(credentialTargets)("%s -> 400 INVALID_URL (credentials), no connection", async (url) => {
    const { status, body } = await expectNoTrapConnection(() => inspect(url, "profile=fast"));
    expect({ status, code: body.error?.code }).toEqual({ status: 400, code: "INVALID_URL" });
  });

  it("the trap does count a real connection (the counter can fail the tests above)", async () => {
    const before = await trapConnections();
    await fetch(`http://127.0.0.1:${T}/`).catch(() => undefined);
    expect(await trapConnections()).toBe(before + 1);
  });

  it("other profiles are refused the same way", async () => {
    for (const profile of ["standard", "full", "embed"]) {
      const { status, body } = await expectNoTrapConnection(() => inspect(`http://127.0.0.1:${T}/x.png`, `profile=${profile}`));
      expect({ profile, status, code: body.error?.code }).toEqual({ profile, status: 403, code: "SSRF_BLOCKED" });
    }
  });
});

describe("redirects to denied targets", () => {
  const hops: [string, string][] = [
    [`http://127.0.0.1:${T}/media/video.mp4`, "loopback literal"],
    [`http://2130706433:${T}/`, "decimal loopback"],
    [`http://[::ffff:127.0.0.1]:${T}/`, "mapped loopback"],
    [`http://localhost:${T}/`, "localhost"],
    [`http://trap.test:${T}/`, "name resolving to the trap"],
    ["http://169.254.169.254/latest/meta-data/", "metadata address"],
    ["http://metadata.google.internal/computeMetadata/v1/", "metadata name"],
    [`http://10.1.2.3:${T}/`, "private"],
  ];

  it.each(hops)("origin 302 -> %s (%s) -> 403, trap untouched", async (target) => {
    const start = `${origin}/redirect-to?url=${encodeURIComponent(target)}&n=${crypto.randomUUID()}`;
    const { status, body } = await expectNoTrapConnection(() => inspect(start, "profile=fast"));
    expect({ status, code: body.error?.code }).toEqual({ status: 403, code: "SSRF_BLOCKED" });
  });

  it("a denied hop at the end of an allowed chain -> 403", async () => {
    const target = encodeURIComponent(`http://127.0.0.1:${T}/`);
    const nonce = crypto.randomUUID();
    const { status, body } = await expectNoTrapConnection(() =>
      inspect(`${origin}/redirect/3/redirect-to?url=${target}&n=${nonce}`, "profile=fast"),
    );
    expect({ status, code: body.error?.code }).toEqual({ status: 403, code: "SSRF_BLOCKED" });
    // Every allowed hop was visited; the denied one never was.
    const visited = (await originStats()).requests.filter((r) => r.path.includes(nonce)).map((r) => r.path.split("?")[0]);
    expect(visited).toEqual(["/redirect/3/redirect-to", "/redirect/2/redirect-to", "/redirect/1/redirect-to", "/redirect-to"]);
  });
});

describe("webhookUrl", () => {
  it("a webhookUrl at a private address is refused before anything is sent", async () => {
    const { status, body } = await expectNoTrapConnection(() =>
      SELF.fetch("http://service/api/v1/inspect?profile=fast", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: media("audio.ogg"), webhookUrl: `http://127.0.0.1:${T}/hook` }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } } })),
    );
    expect({ status, code: body.error?.code }).toEqual({ status: 403, code: "SSRF_BLOCKED" });
  });
});

describe("identifying headers are never forwarded", () => {
  const identifying = {
    cookie: "session=secret-cookie",
    authorization: "Bearer secret-token",
    "proxy-authorization": "Basic c2VjcmV0",
    "x-forwarded-for": "203.0.113.7",
    "x-forwarded-host": "client.example",
    "x-real-ip": "203.0.113.8",
    "cf-connecting-ip": "203.0.113.9",
    "true-client-ip": "203.0.113.10",
    forwarded: "for=203.0.113.11;proto=https",
    referer: "https://client.example/page",
  };

  it.each(["audio.ogg", "video-moov-end.mp4"])("none of the caller's headers reach the origin (%s, every request)", async (file) => {
    const url = media(file);
    const { status } = await inspect(url, "profile=fast", { headers: identifying });
    expect(status).toBe(200);
    const nonce = new URL(url).searchParams.get("n")!;
    const requests = (await originStats()).requests.filter((r) => r.path.includes(nonce));
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      const names = Object.keys(request.headers).map((h) => h.toLowerCase());
      for (const header of Object.keys(identifying)) expect(names, `${header} forwarded`).not.toContain(header);
      const values = JSON.stringify(request.headers);
      expect(values).not.toMatch(/secret|203\.0\.113|client\.example/);
      expect(request.headers["user-agent"]).toMatch(/^media-inspect\//);
    }
  });
});
