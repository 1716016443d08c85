// Issue 5 items 4 and 5 for everything that is not a registered provider: the `embed` profile (SPEC 2.4, 4.3
// rule 4) of direct media and of web pages, and the framing policy read from the origin's own headers
// (X-Frame-Options, CSP frame-ancestors). The loopback origin adds those headers on /media with ?xfo= / ?csp=.
import { describe, expect, it } from "vitest";
import { inspect, media, origin } from "../../../testkit/worker/helpers.ts";

const embedKeys = ["data", "profile", "success"];

describe("direct media in the embed profile", () => {
  it.each([
    ["video.mp4", "video", "video/mp4"],
    ["png-opaque.png", "img", "image/png"],
    ["audio.mp3", "audio", "audio/mpeg"],
  ])("%s renders natively with <%s>", async (file, tag, mime) => {
    const url = media(file);
    const r = await inspect(url, "profile=embed");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(embedKeys);
    expect(r.body.profile).toBe("embed");
    const { data } = r.body;
    expect(data).toMatchObject({
      embedType: tag === "img" ? "image" : tag,
      mime,
      renderability: { native: true, embeddable: { status: "verified" }, framing: { allowed: true } },
      verification: { providerVerified: false, registryVerified: false, networkVerified: true },
      render: { strategy: "native", safeEmbed: true, tag, attributes: { src: url } },
    });
    expect(data.provider).toBeUndefined();
    expect(data.providerCapabilities).toBeUndefined();
    expect(data.html).toBeUndefined();
    for (const k of ["identity", "semantic", "metadata", "preview", "playback", "diagnostics"]) expect(data[k]).toBeUndefined();
    if (tag === "video") expect(data.render.attributes).toMatchObject({ controls: true, allowfullscreen: true });
    if (tag === "audio") expect(data.render.attributes).toMatchObject({ controls: true });
  });

  it("expand=html gives the native element with escaped attributes", async () => {
    const url = media("video.mp4", "q=a\"b<c>&d='e'");
    const r = await inspect(url, "profile=embed&expand=html");
    expect(r.status).toBe(200);
    const html: string = r.body.data.html;
    expect(html).toMatch(/^<video [^<>]*><\/video>$/);
    // The URL parser already percent-encodes quotes and angle brackets; the & separators must become &amp;.
    const escaped = new URL(url).href.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/'/g, "&#39;");
    expect(html).toContain(` src="${escaped}"`);
    expect(html).toContain("&amp;q=a%22b%3Cc%3E&amp;d=");
    expect(html).toMatch(/ controls[ >]/);

    const img = await inspect(media("png-opaque.png"), "profile=embed&expand=html");
    expect(img.body.data.html).toMatch(/^<img [^<>]*src="[^"]+png-opaque\.png[^"]*"[^<>]*>$/);
  });

  it("expand=html is refused outside the embed profile", async () => {
    const r = await inspect(media("png-opaque.png"), "profile=standard&expand=html");
    expect(r.status).toBe(400);
    expect(r.body.status).toBe("error");
  });
});

describe("framing reported for an origin that forbids it", () => {
  it.each([
    ["X-Frame-Options DENY", "xfo=DENY", { allowed: false, xFrameOptions: "DENY" }],
    ["X-Frame-Options SAMEORIGIN", "xfo=SAMEORIGIN", { allowed: false, xFrameOptions: "SAMEORIGIN" }],
    ["CSP frame-ancestors 'none'", `csp=${encodeURIComponent("default-src 'self'; frame-ancestors 'none'")}`, { allowed: false, frameAncestors: "'none'" }],
    ["CSP frame-ancestors one site", `csp=${encodeURIComponent("frame-ancestors https://partner.example")}`, { allowed: false, frameAncestors: "https://partner.example" }],
    // CSP wins over X-Frame-Options when both are present (CSP Level 2, 7.7.1).
    ["CSP * overriding XFO DENY", `xfo=DENY&csp=${encodeURIComponent("frame-ancestors *")}`, { allowed: true, xFrameOptions: "DENY", frameAncestors: "*" }],
  ])("%s", async (_label, params, framing) => {
    const r = await inspect(media("video.mp4", params), "profile=embed");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.renderability.framing).toEqual(framing);
    // A direct file still plays natively in a <video> element whatever its framing headers say.
    expect(r.body.data.renderability.native).toBe(true);
    expect(r.body.data.render).toMatchObject({ strategy: "native", tag: "video", safeEmbed: true });
    expect(r.body.data.renderability.iframe.supported).toBe(framing.allowed ? "likely" : "blocked");
  });

  it("a web page that forbids framing is offered as a link, not an iframe", async () => {
    const url = `${origin}/page.html?n=${crypto.randomUUID().slice(0, 8)}`;
    const r = await inspect(url, "profile=embed&expand=html");
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      embedType: "webpage",
      mime: "text/html",
      renderability: {
        native: false,
        iframe: { supported: "blocked" },
        embeddable: { status: "not-embeddable", reason: expect.any(String) },
        framing: { allowed: false, xFrameOptions: "DENY" },
      },
      render: { strategy: "link", tag: "a", attributes: { href: url } },
    });
    expect(r.body.data.html).toMatch(/^<a [^<>]*href="[^"]+"[^<>]*>A &amp; B page<\/a>$/);
  });

  it("a web page that allows framing gets a sandboxed iframe with no permissions, marked unsafe", async () => {
    const url = `${origin}/html-page?n=${crypto.randomUUID().slice(0, 8)}&title=Framable`;
    const r = await inspect(url, "profile=embed&expand=html");
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      embedType: "webpage",
      renderability: { native: false, iframe: { supported: "likely" }, embeddable: { status: "likely" }, framing: { allowed: true } },
      render: { strategy: "iframe", safeEmbed: false, tag: "iframe", attributes: { src: url, sandbox: "" } },
    });
    expect(r.body.data.html).toMatch(/^<iframe [^<>]*sandbox=""[^<>]*><\/iframe>$/);
  });
});
