// Issue 5 item 3: generic oEmbed discovery for pages of providers not in the registry. The loopback origin's
// /html-page builds a page whose head carries `<link rel="alternate" type="application/json+oembed">` pointing
// at the fake oEmbed server (?oembed=), optionally after `pad` bytes of head and before `body` bytes of body, so
// the bytes the origin sent show how far the page was read.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, origin, originStats, trapConnections, trapPort } from "../../../testkit/worker/helpers.ts";

const KiB = 1024;
/** Part of a page read while looking for </head> (worker/probe/html-head.ts maxHtmlHeadBytes). */
const maxHtmlHeadBytes = 512 * KiB;
/** The Range reads that continue past the probe come in chunks of at most this size. */
const readChunkBytes = 64 * KiB;
const oembedBase = (env as unknown as { OEMBED_BASE_URL: string }).OEMBED_BASE_URL;

const nonce = () => crypto.randomUUID().slice(0, 8);

/** A discovery page on the loopback origin whose json+oembed link names a host the fake turns into a provider name. */
function discoveryPage(n: string, opts: { pad?: number; body?: number; norange?: boolean; trickle?: number; title?: string; host?: string } = {}) {
  const host = opts.host ?? "video.example.test";
  const href = `${oembedBase}/${host}/oembed?url=${encodeURIComponent(`https://${host}/v/${n}`)}&format=json`;
  const params = new URLSearchParams({ n, oembed: href, title: opts.title ?? `Page ${n}` });
  if (opts.pad) params.set("pad", String(opts.pad));
  if (opts.body) params.set("body", String(opts.body));
  if (opts.norange) params.set("norange", "");
  if (opts.trickle) params.set("trickle", String(opts.trickle));
  return { url: `${origin}/html-page?${params}`, href };
}

async function oembedRequestsFor(n: string): Promise<string[]> {
  const all = (await (await fetch(`${origin}/__extra/oembed`)).json()) as string[];
  return all.filter((p) => decodeURIComponent(p).includes(`/v/${n}`));
}

async function pageRequests(n: string) {
  return (await originStats()).requests.filter((r) => r.path.startsWith("/html-page") && r.path.includes(`n=${n}`));
}

describe("a page with a json+oembed link", () => {
  it("is described by the oEmbed it links to, with detectionMethod oembed-discovery, in every profile", async () => {
    const n = nonce();
    const { url } = discoveryPage(n);
    const fast = await inspect(url, "profile=fast");
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    const title = `video.example.test title for ${`https://video.example.test/v/${n}`.slice(-24)}`;
    for (const profile of ["fast", "standard", "full"]) {
      const { status, body } = profile === "fast" ? fast : await inspect(url, `profile=${profile}`);
      expect(status).toBe(200);
      expect(body.processing).toMatchObject({ status: "complete", pendingStages: [], completedStages: ["semantic", "mediaFormat", "oembed"] });
      expect(body.data.identity).toMatchObject({ url, finalUrl: url, canonicalUrl: url, mime: "text/html" });
      expect(body.data.semantic).toEqual({ kind: "embed-media", semanticType: "embedded-video", title });
      expect(body.data.provider).toEqual({ name: `oembed:${new URL(origin).hostname}`, confidence: expect.any(Number), detectionMethod: "oembed-discovery" });
      expect(body.data.provider.confidence).toBeLessThan(1);
      // The embed URL is the src of the iframe in the oEmbed html.
      expect(body.data.playback).toMatchObject({ strategy: "iframe", embedUrl: "https://player.example.test/embed" });
      expect(body.data.preview).toEqual({ thumbnail: { url: "https://i.example.test/video.example.test/thumb.jpg" } });
      if (profile === "fast") expect(body.data.providerData).toBeUndefined();
      else {
        expect(body.data.providerData.oembed).toMatchObject({ title });
        // The page's own claims are not passed on: no html, no self-declared provider name.
        expect(body.data.providerData.oembed.html).toBeUndefined();
        expect(body.data.providerData.oembed.provider_name).toBeUndefined();
        expect(body.data.playback.html).toMatch(/^<iframe [^<>]*src="https:\/\/player\.example\.test\/embed"[^<>]*sandbox="[^"]+"[^<>]*><\/iframe>$/);
      }
    }
    const embed = await inspect(url, "profile=embed");
    expect(embed.body.data).toMatchObject({
      provider: `oembed:${new URL(origin).hostname}`,
      verification: { providerVerified: false, registryVerified: false, networkVerified: true, method: "oembed-discovery" },
      render: { strategy: "iframe", tag: "iframe", attributes: { src: "https://player.example.test/embed", allowfullscreen: true } },
    });
    // One oEmbed request however many inspections; the page itself was read once.
    expect(await oembedRequestsFor(n)).toHaveLength(1);
    expect(await pageRequests(n)).toHaveLength(1);
  });

  it("the link's href is resolved and entity-decoded (&amp; in the attribute)", async () => {
    const n = nonce();
    const { url, href } = discoveryPage(n);
    const r = await inspect(url, "profile=standard");
    expect(r.status).toBe(200);
    const calls = await oembedRequestsFor(n);
    expect(calls).toHaveLength(1);
    // The fake got exactly the href the page declared, with its & separators intact.
    expect(new URL(calls[0]!, oembedBase).href).toBe(new URL(href).href);
  });

  it("an oEmbed endpoint that fails leaves an ordinary web page (title from <title>), not an error", async () => {
    const n = `down${nonce()}`;
    const { url } = discoveryPage(n, { title: "Still a page" });
    const r = await inspect(url, "profile=standard");
    expect(r.status).toBe(200);
    expect(r.body.data.semantic).toEqual({ kind: "webpage", title: "Still a page" });
    expect(r.body.data.provider).toBeUndefined();
    expect(await oembedRequestsFor(n)).toHaveLength(1);
  });

  it("a link to a denied address is never followed (the page stays a web page, nothing connects)", async () => {
    const n = nonce();
    const before = await trapConnections();
    for (const href of [`http://127.0.0.1:${trapPort}/oembed?url=x&format=json`, `http://trap.test:${trapPort}/oembed?format=json`, "http://10.0.0.1/oembed"]) {
      const url = `${origin}/html-page?${new URLSearchParams({ n, oembed: href, title: "Sneaky" })}`;
      const r = await inspect(url, "profile=standard");
      expect(r.status).toBe(200);
      expect(r.body.data.semantic).toEqual({ kind: "webpage", title: "Sneaky" });
      expect(r.body.data.provider).toBeUndefined();
    }
    expect(await trapConnections()).toBe(before);
  });
});

describe("a page without a link", () => {
  it("is a web page titled by its <title>, entities decoded", async () => {
    const n = nonce();
    const url = `${origin}/html-page?n=${n}&title=${encodeURIComponent(`Tom & Jerry's <page>`)}`;
    const r = await inspect(url, "profile=standard");
    expect(r.status).toBe(200);
    expect(r.body.data.semantic).toEqual({ kind: "webpage", title: "Tom & Jerry's <page>" });
    // identity.url is the input as given (SPEC 2.2); finalUrl is the WHATWG-serialised URL fetched.
    expect(r.body.data.identity).toMatchObject({ mime: "text/html", url, finalUrl: new URL(url).href });
    expect(r.body.data.identity.canonicalUrl).toBeUndefined();
    expect(r.body.data.provider).toBeUndefined();
    expect(r.body.data.playback).toMatchObject({ strategy: "link" });
    expect(r.body.processing).toMatchObject({ status: "complete", completedStages: ["semantic", "mediaFormat", "page", "page:media"] });
    expect(await oembedRequestsFor(n)).toHaveLength(0);
  });
});

describe("reading the head", () => {
  it("a head longer than 64 KiB is read up to </head>, never the body", async () => {
    const n = nonce();
    const pad = 150 * KiB;
    const body = 4 * 1024 * KiB;
    const { url } = discoveryPage(n, { pad, body });
    const r = await inspect(url, "profile=fast");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Title and link sit after 150 KiB of head: found only by reading past the probe's first 64 KiB.
    expect(r.body.data.provider).toMatchObject({ detectionMethod: "oembed-discovery" });
    expect(r.body.data.semantic.title).toMatch(/^video\.example\.test title for /);
    const requests = await pageRequests(n);
    const sent = requests.reduce((sum, q) => sum + q.bytes, 0);
    const headEnd = pad + 1024; // padding plus the few tags around it
    expect(sent).toBeGreaterThan(pad);
    // At most one read chunk past </head>, and nothing like the 4 MiB body.
    expect(sent).toBeLessThanOrEqual(headEnd + readChunkBytes);
    for (const q of requests) expect(q.range, "every read is a Range read").toMatch(/^bytes=\d+-\d+$/);
    for (const q of requests) expect(Number(q.range!.match(/^bytes=(\d+)/)![1])).toBeLessThan(headEnd);
  });

  it("a head longer than the cap is read only up to the cap; what lies beyond is not seen", async () => {
    const n = nonce();
    const { url } = discoveryPage(n, { pad: maxHtmlHeadBytes + 64 * KiB, body: 1024 * KiB });
    const r = await inspect(url, "profile=fast");
    expect(r.status).toBe(200);
    expect(r.body.data.semantic.kind).toBe("webpage");
    expect(r.body.data.semantic.title).toBeUndefined();
    const sent = (await pageRequests(n)).reduce((sum, q) => sum + q.bytes, 0);
    expect(sent).toBeLessThanOrEqual(maxHtmlHeadBytes);
    expect(sent).toBeGreaterThan(maxHtmlHeadBytes - readChunkBytes);
    expect(await oembedRequestsFor(n)).toHaveLength(0);
  });

  // A non-Range page is read past the probe's first 64 KiB by one plain GET, cut at </head>.
  it("an origin without Range support: a head longer than 64 KiB is still read up to </head>, then the GET is dropped", async () => {
    const n = nonce();
    const pad = 100 * KiB;
    // The body trickles out (16 KiB every 20 ms, about 5 s for all of it), so the origin's count shows when
    // each request was hung up on.
    const { url } = discoveryPage(n, { pad, body: 4 * 1024 * KiB, norange: true, trickle: 20 });
    const started = Date.now();
    const r = await inspect(url, "profile=fast");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.provider).toMatchObject({ detectionMethod: "oembed-discovery" });
    expect(r.body.data.semantic.title).toMatch(/^video\.example\.test title for /);
    expect(Date.now() - started).toBeLessThan(2000);
    const requests = await pageRequests(n);
    // The probe's GET (cut at 64 KiB) and one GET read up to </head>.
    expect(requests).toHaveLength(2);
    // The origin counts what it wrote to the socket, so a hang-up is seen one tick later per 16 KiB it kept
    // writing: 16 ticks (320 ms, 256 KiB) leave room for two busy cores and are still far below the 4 MiB body.
    const headEnd = pad + 1024;
    for (const q of requests) expect(q.bytes).toBeLessThanOrEqual(headEnd + 16 * 16 * KiB);
  });
});

describe("a discovered oEmbed is untrusted (issue 15, finding 6)", () => {
  it("a page posing as YouTube: namespaced name, never verified or safe, no html, no javascript: URLs", async () => {
    const n = `Hostile${nonce()}`;
    const { url } = discoveryPage(n, { host: "www.youtube.com" });
    for (const profile of ["standard", "embed"]) {
      const { status, body } = await inspect(url, `profile=${profile}`);
      expect(status, JSON.stringify(body)).toBe(200);
      const text = JSON.stringify(body);
      expect(text).not.toMatch(/javascript:|<script|alert\(/i);
      expect(text).not.toMatch(/"(name|provider)":"youtube"/i);
      if (profile === "standard") {
        expect(body.data.provider).toMatchObject({ name: `oembed:${new URL(origin).hostname}`, detectionMethod: "oembed-discovery" });
        expect(body.data.providerData.oembed).toEqual({ type: "video", version: "1.0", title: "Totally YouTube", width: 640, height: 360 });
        // No https iframe in the html: the embed is the page itself, never the javascript: src.
        expect(body.data.providerData.embedUrl).toBe(url);
      } else {
        expect(body.data.provider).toBe(`oembed:${new URL(origin).hostname}`);
        expect(body.data.verification).toMatchObject({ providerVerified: false, registryVerified: false });
        expect(body.data.render.safeEmbed).toBe(false);
        expect(body.data.render.renderConfidence.level).not.toBe("verified");
        expect(body.data.renderability.iframe.supported).not.toBe("verified");
      }
    }
  });
});
