import { describe, expect, it } from "vitest";
import { framingPolicy, project } from "../../shared/projection/index.ts";
import { EmbedResponse, type ExpandName } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { buildRecord, hostileTitle, isDirectMedia, isProvider, recordKinds, scenarios } from "./fixtures/records.ts";

// The embed profile (SPEC 2.4, 4.3 rule 4): render data only, no processing/enrichmentSources/projection.

const allowedDataKeys = ["embedType", "mime", "provider", "renderability", "verification", "render", "providerCapabilities", "html"];

function embed(record: ResourceRecord, expand?: ExpandName[], debug?: boolean): EmbedResponse {
  const out = project(record, { profile: "embed", responseSource: "fresh", ...(expand ? { expand } : {}), ...(debug ? { debug } : {}) });
  const parsed = EmbedResponse.safeParse(out);
  if (!parsed.success) throw new Error(`not an EmbedResponse: ${parsed.error.message}`);
  expect(JSON.parse(JSON.stringify(out))).toStrictEqual(out);
  return out as EmbedResponse;
}

const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** Tag name and attribute values of a double-quoted opening tag; throws on anything a tokenizer would not read cleanly. */
function openingTagAttributes(html: string): { tag: string; attributes: Record<string, string | true> } {
  const open = /^<([a-z]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)>/.exec(html);
  if (!open) throw new Error(`not a well-formed opening tag: ${html}`);
  const attributes: Record<string, string | true> = {};
  for (const m of open[2]!.matchAll(/\s+([a-z-]+)(?:="([^"]*)")?/g)) {
    attributes[m[1]!] = m[2] === undefined ? true : m[2].replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => entities[e]!);
  }
  return { tag: open[1]!, attributes };
}

function walkObjects(value: unknown, visit: (v: object, path: string) => void, path = ""): void {
  if (value === null || typeof value !== "object") return;
  visit(value, path);
  for (const [k, v] of Object.entries(value)) walkObjects(v, visit, `${path}.${k}`);
}

describe("embed profile over every category x scenario x expand", () => {
  const expands: (ExpandName[] | undefined)[] = [undefined, ["html"], ["embedHtml"], ["rawHeaders"], ["html", "embedHtml", "rawHeaders"]];
  for (const kind of recordKinds) {
    for (const scenario of scenarios) {
      it(`${kind} / ${scenario}`, () => {
        const record = buildRecord(kind, scenario, { headers: { "x-frame-options": "DENY" } });
        for (const expand of expands) {
          for (const debug of [false, true]) {
            const res = embed(record, expand, debug);
            const label = `${kind} ${scenario} ${expand} ${debug}`;
            expect(Object.keys(res).sort(), label).toStrictEqual(["data", "profile", "success"]);
            expect(res.profile).toBe("embed");
            for (const key of Object.keys(res.data)) expect(allowedDataKeys, `${label}: data.${key}`).toContain(key);
            walkObjects(res.data, (o, path) => expect(Object.keys(o).length, `${label}: {} at ${path}`).toBeGreaterThan(0));
            // html only on request, escaped, and exactly the element `render` describes.
            const wantsHtml = expand?.includes("html") ?? false;
            expect(res.data.html !== undefined, label).toBe(wantsHtml);
            if (res.data.html) {
              expect(res.data.html).not.toContain("<script");
              const { tag, attributes } = openingTagAttributes(res.data.html);
              expect(tag, label).toBe(res.data.render.tag);
              const rendered = Object.fromEntries(Object.entries(res.data.render.attributes).filter(([, v]) => v !== false).map(([k, v]) => [k, v === true ? true : String(v)]));
              expect(attributes, label).toStrictEqual(rendered);
            }
            // Provider fields only for providers; framing only for resources served by their own origin.
            if (isProvider(kind)) {
              expect(res.data.provider).toBe(record.provider!.name);
              expect(res.data.providerCapabilities).toStrictEqual(record.provider!.capabilities);
              expect(res.data.renderability.framing).toBeUndefined();
              expect(res.data.render).toMatchObject({ strategy: "iframe", tag: "iframe" });
              expect(res.data.render.attributes).toMatchObject({ src: record.provider!.embedUrl, allowfullscreen: true });
              expect(res.data.embedType).toBe(record.provider!.semanticType);
            } else {
              expect(res.data).not.toHaveProperty("provider");
              expect(res.data).not.toHaveProperty("providerCapabilities");
              expect(res.data.renderability.framing).toStrictEqual({ allowed: false, xFrameOptions: "DENY" });
            }
            if (isDirectMedia(kind)) {
              expect(res.data.renderability.native).toBe(true);
              expect(res.data.render).toMatchObject({ strategy: "native", tag: { image: "img", video: "video", audio: "audio" }[kind as string] });
              expect(res.data.embedType).toBe(kind);
            }
          }
        }
        // The same record answers the same whatever stage states say about unrelated enrichments.
        expect(embed(record)).toStrictEqual(embed(structuredClone(record)));
      });
    }
  }
});

describe("embed verification follows oEmbed", () => {
  it("registry-detected provider: likely until oEmbed answers, verified after, likely again if it failed", () => {
    const pending = embed(buildRecord("youtube", "initial")).data;
    expect(pending.verification).toStrictEqual({ providerVerified: false, registryVerified: true, networkVerified: false, method: "registry" });
    expect(pending.renderability.iframe.supported).toBe("likely");
    const done = embed(buildRecord("youtube", "done")).data;
    expect(done.verification).toStrictEqual({ providerVerified: true, registryVerified: true, networkVerified: true, method: "registry" });
    expect(done.renderability).toMatchObject({ native: false, iframe: { supported: "verified" }, embeddable: { status: "verified" } });
    expect(done.render.renderConfidence.level).toBe("verified");
    expect(embed(buildRecord("spotify", "failed")).data.verification.networkVerified).toBe(false);
  });

  it("a provider that refuses embedding is reported blocked with its reason", () => {
    const record = buildRecord("youtube", "done", { results: { embeddable: false, embeddableReason: "Embedding disabled by the owner." } });
    const data = embed(record).data;
    expect(data.renderability.embeddable).toStrictEqual({ status: "not-embeddable", reason: "Embedding disabled by the owner." });
    expect(data.renderability.iframe.supported).toBe("blocked");
    expect(data.render.safeEmbed).toBe(false);
  });

  it("html for a provider is an escaped iframe carrying the oEmbed title", () => {
    const html = embed(buildRecord("youtube", "done"), ["html"]).data.html!;
    expect(html).toMatch(/^<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ" title="He said &quot;hi&quot; &amp; it&#39;s &lt;script&gt;/);
    expect(html.endsWith("></iframe>")).toBe(true);
    expect(hostileTitle).toContain("<script>");
  });
});

describe("framing for direct media and pages (X-Frame-Options, CSP frame-ancestors)", () => {
  const table: [Record<string, string>, { allowed: boolean; xFrameOptions?: string; frameAncestors?: string }][] = [
    [{}, { allowed: true }],
    [{ "x-frame-options": "DENY" }, { allowed: false, xFrameOptions: "DENY" }],
    [{ "x-frame-options": "sameorigin" }, { allowed: false, xFrameOptions: "sameorigin" }],
    [{ "x-frame-options": "ALLOW-FROM https://a.example" }, { allowed: false, xFrameOptions: "ALLOW-FROM https://a.example" }],
    [{ "x-frame-options": "ALLOWALL" }, { allowed: true, xFrameOptions: "ALLOWALL" }],
    [{ "content-security-policy": "default-src 'self'; frame-ancestors 'none'" }, { allowed: false, frameAncestors: "'none'" }],
    [{ "content-security-policy": "frame-ancestors 'self' https://partner.example" }, { allowed: false, frameAncestors: "'self' https://partner.example" }],
    [{ "content-security-policy": "frame-ancestors *" }, { allowed: true, frameAncestors: "*" }],
    [{ "content-security-policy": "frame-ancestors https:" }, { allowed: true, frameAncestors: "https:" }],
    [{ "content-security-policy": "img-src *" }, { allowed: true }],
    // CSP frame-ancestors takes precedence over X-Frame-Options, both ways.
    [{ "x-frame-options": "DENY", "content-security-policy": "frame-ancestors *" }, { allowed: true, xFrameOptions: "DENY", frameAncestors: "*" }],
    [{ "x-frame-options": "ALLOWALL", "content-security-policy": "frame-ancestors 'none'" }, { allowed: false, xFrameOptions: "ALLOWALL", frameAncestors: "'none'" }],
    // Two policies (comma-joined header): each is enforced, so one restrictive policy blocks.
    [{ "content-security-policy": "frame-ancestors *, frame-ancestors 'none'" }, { allowed: false, frameAncestors: "*, 'none'" }],
  ];
  for (const [headers, expected] of table) {
    it(`${JSON.stringify(headers)} -> ${expected.allowed ? "allowed" : "blocked"}`, () => {
      const policy = framingPolicy(headers);
      expect(policy.allowed).toBe(expected.allowed);
      if (expected.xFrameOptions) expect(policy.xFrameOptions).toBe(expected.xFrameOptions);
      else expect(policy).not.toHaveProperty("xFrameOptions");
      if (expected.frameAncestors !== undefined) expect(policy.frameAncestors).toBe(expected.frameAncestors);
      else expect(policy).not.toHaveProperty("frameAncestors");
      // Same answer through the projection for a direct-media record.
      const data = embed(buildRecord("video", "done", { headers })).data;
      expect(data.renderability.framing).toStrictEqual(policy);
      expect(data.render.strategy).toBe("native");
    });
  }

  it("a page that forbids framing renders as a link; one that allows it as a sandboxed iframe", () => {
    const blocked = embed(buildRecord("webpage", "done", { headers: { "x-frame-options": "DENY" } }), ["html"]).data;
    expect(blocked.render).toMatchObject({ strategy: "link", tag: "a" });
    expect(blocked.renderability.embeddable.status).toBe("not-embeddable");
    expect(blocked.html).toMatch(/^<a href="https:\/\/blog\.example\.com\/posts\/hello"/);
    const open = embed(buildRecord("webpage", "done"), ["html"]).data;
    // The html is the element `render` describes, not a link beside an iframe verdict.
    expect(open.html).toBe('<iframe src="https://blog.example.com/posts/hello" sandbox=""></iframe>');
    expect(open.render).toMatchObject({ strategy: "iframe", tag: "iframe", safeEmbed: false, attributes: { src: "https://blog.example.com/posts/hello", sandbox: "" } });
    expect(open.renderability.embeddable.status).toBe("likely");
  });
});
