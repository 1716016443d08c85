import { describe, expect, it } from "vitest";
import { deriveProcessing, project, type ProjectionOptions } from "../../shared/projection/index.ts";
import { namespaceNames, type NamespaceName } from "../../shared/schemas/inspect-data.ts";
import { InspectResponse, type ExpandName } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { stagesByCategory, type StageName } from "../../shared/schemas/stages.ts";
import { buildRecord, isDirectMedia, isProvider, recordKinds, scenarios, type RecordKind } from "./fixtures/records.ts";

// SPEC 2.3, 3 and 4.3 as invariants, checked for every profile x category x stage scenario x fields x expand.

const inspectProfiles = ["fast", "standard", "full"] as const;
type InspectProfile = (typeof inspectProfiles)[number];

const fieldVariants: (NamespaceName[] | undefined)[] = [
  undefined,
  ...namespaceNames.map((n) => [n]),
  ["identity", "playback"],
  ["provider", "preview", "metadata"],
  [...namespaceNames],
];

const expandVariants: { expand?: ExpandName[]; debug?: boolean }[] = [
  {},
  { debug: true },
  { expand: ["embedHtml"] },
  { expand: ["rawHeaders"] },
  { expand: ["rawHeaders"], debug: true },
  { expand: ["html"] },
  { expand: ["embedHtml", "rawHeaders"], debug: true },
];

/** Data paths that a stage fills: `null` there is only legal while that stage is pending. */
function pathsOfStage(record: ResourceRecord): Partial<Record<StageName, string[]>> {
  if (record.provider) return { oembed: ["providerData.oembed", ...(record.provider.thumbnailUrl ? [] : ["preview.thumbnail"])] };
  return {
    "metadata:image": ["metadata.image"],
    "metadata:video": ["metadata.video"],
    "metadata:audio": ["metadata.audio"],
    "metadata:provenance": ["metadata.capture", "metadata.rights", "provenance"],
    "preview:thumbnail": ["preview.thumbnail"],
    "preview:blurhash": ["preview.placeholder"],
    "preview:palette": ["preview.palette", "preview.dominantColor"],
  };
}

/** Reserved audio fields that SPEC 2.2 says are always null. */
const alwaysNull = new Set(["preview.waveform", "preview.spectrogram"]);

function walk(value: unknown, path: string, visit: (path: string, value: unknown) => void): void {
  visit(path, value);
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key, visit);
  }
}

function get(data: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), data);
}

function has(data: unknown, path: string): boolean {
  const parts = path.split(".");
  const owner = parts.length === 1 ? data : get(data, parts.slice(0, -1).join("."));
  return owner !== null && typeof owner === "object" && Object.hasOwn(owner, parts.at(-1)!);
}

const html5Entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/**
 * Reads the opening tag's attributes the way an HTML tokenizer would for double-quoted values, and
 * fails if anything else is in the tag (an unescaped quote would end a value early and leave debris).
 */
function openingTagAttributes(html: string): { tag: string; attributes: Record<string, string | true>; rest: string } {
  const open = /^<([a-z]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)>/.exec(html);
  if (!open) throw new Error(`not a well-formed opening tag: ${html}`);
  const attributes: Record<string, string | true> = {};
  for (const m of open[2]!.matchAll(/\s+([a-z-]+)(?:="([^"]*)")?/g)) {
    attributes[m[1]!] = m[2] === undefined ? true : m[2].replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => html5Entities[e]!);
  }
  return { tag: open[1]!, attributes, rest: html.slice(open[0].length) };
}

type Opts = Omit<ProjectionOptions, "responseSource">;

function inspect(record: ResourceRecord, options: Opts): InspectResponse {
  const out = project(record, { responseSource: "fresh", ...options });
  const parsed = InspectResponse.safeParse(out);
  if (!parsed.success) throw new Error(`not an InspectResponse (${JSON.stringify(options)}): ${parsed.error.message}`);
  // No undefined values may leak: the wire form must equal the object.
  expect(JSON.parse(JSON.stringify(out))).toStrictEqual(out);
  return out as InspectResponse;
}

function checkInvariants(kind: RecordKind, record: ResourceRecord, profile: InspectProfile, opts: Omit<Opts, "profile">, baseline: InspectResponse): void {
  const label = `${kind} ${profile} ${JSON.stringify(opts)}`;
  const res = inspect(record, { profile, ...opts });
  const { data, processing } = res;

  // processing: identical for every profile, fields and expand; derived from the record alone.
  expect(processing, label).toStrictEqual(baseline.processing);
  expect(processing, label).toStrictEqual(deriveProcessing(record));

  // No {} anywhere below data; null only where a registered stage is pending (or the reserved audio fields).
  const nullable = pathsOfStage(record);
  const pendingPaths = new Set(processing.pendingStages.flatMap((s) => nullable[s] ?? []));
  walk(data, "", (path, value) => {
    if (path && value !== null && typeof value === "object" && !Array.isArray(value)) {
      expect(Object.keys(value).length, `${label}: empty object at ${path}`).toBeGreaterThan(0);
    }
    if (value === null) {
      const ok = pendingPaths.has(path) || path === "provenance.aiGenerated" || (record.category === "audio" && alwaysNull.has(path));
      expect(ok, `${label}: null at ${path} without a pending stage`).toBe(true);
    }
  });

  // Failed stages: fields omitted (neither null nor a value).
  for (const stage of processing.failedStages ?? []) {
    for (const path of nullable[stage] ?? []) expect(has(data, path), `${label}: failed ${stage} left ${path}`).toBe(false);
  }

  // fields restricts data to the listed namespaces (providerData belongs to `provider`) and changes no content.
  if (opts.fields) {
    for (const key of Object.keys(data)) {
      if (key === "network") continue;
      const namespace = key === "providerData" ? "provider" : key;
      expect(opts.fields, `${label}: ${key} outside fields`).toContain(namespace);
    }
    const unrestricted = inspect(record, { ...opts, profile, fields: undefined });
    for (const [key, value] of Object.entries(data)) expect(value, `${label}: ${key}`).toStrictEqual(unrestricted.data[key as keyof typeof data]);
    for (const key of Object.keys(unrestricted.data)) {
      const namespace = key === "providerData" ? "provider" : key;
      if (key === "network" || opts.fields.includes(namespace as NamespaceName)) expect(data, `${label}: lost ${key}`).toHaveProperty(key);
    }
  }
  const selected = (ns: NamespaceName) => !opts.fields || opts.fields.includes(ns);

  // diagnostics: full only.
  if (profile !== "full") expect(data.diagnostics, label).toBeUndefined();
  else if (selected("diagnostics")) {
    const timings = data.diagnostics!.timings;
    expect(timings, label).toHaveProperty("total");
    for (const [key, ms] of Object.entries(timings)) expect(Number.isInteger(ms), `${label}: timings.${key}=${ms}`).toBe(true);
  }

  // hiddenFields: ["preview"] in fast for direct media, [] otherwise.
  expect(res.projection, label).toStrictEqual({ profile, hiddenFields: profile === "fast" && isDirectMedia(kind) ? ["preview"] : [] });

  // Generated previews hidden in fast; provider-native thumbnail kept.
  if (profile === "fast" && !isProvider(kind)) expect(data.preview, label).toBeUndefined();
  if (isProvider(kind) && record.provider!.thumbnailUrl && selected("preview")) {
    expect(data.preview?.thumbnail, label).toStrictEqual({ url: record.provider!.thumbnailUrl });
  }

  // providerData: never in fast; in standard/full for providers only.
  if (profile === "fast" || !isProvider(kind)) expect(data.providerData, label).toBeUndefined();
  else if (selected("provider")) expect(data.providerData?.embedUrl, label).toBe(record.provider!.embedUrl);
  if (isProvider(kind) && selected("provider")) expect(data.provider?.name, label).toBe(record.provider!.name);
  if (!isProvider(kind)) expect(data.provider, label).toBeUndefined();

  // playback.html: standard/full, or fast with expand=embedHtml; always escaped.
  const wantHtml = selected("playback") && (profile !== "fast" || (opts.expand ?? []).includes("embedHtml"));
  expect(data.playback?.html !== undefined, label).toBe(wantHtml);
  if (data.playback?.html) checkHtml(record, data.playback.html, label);

  // network.headers only with rawHeaders + debug, the probe's headers minus set-cookie.
  const wantHeaders = (opts.expand ?? []).includes("rawHeaders") && opts.debug === true;
  if (wantHeaders) {
    const expected = Object.fromEntries(Object.entries(record.probe.headers).filter(([n]) => n.toLowerCase() !== "set-cookie"));
    expect(data.network?.headers, label).toStrictEqual(expected);
  } else expect(data.network, label).toBeUndefined();

  // Category sub-objects are mutually exclusive; audio's preview is the two reserved nulls.
  const subObjects = ["image", "video", "audio"].filter((c) => has(data, `metadata.${c}`));
  expect(subObjects.every((c) => c === record.category), `${label}: metadata has ${subObjects}`).toBe(true);
  if (kind === "audio" && profile !== "fast" && selected("preview")) expect(data.preview, label).toStrictEqual({ waveform: null, spectrogram: null });

  // enrichmentSources only when complete: every finished stage that produced a result, all "fresh".
  if (processing.status === "complete") {
    const succeeded = processing.completedStages.filter((s) => !(processing.failedStages ?? []).includes(s));
    expect(res.enrichmentSources, label).toStrictEqual(Object.fromEntries(succeeded.map((s) => [s, "fresh"])));
  } else expect(res.enrichmentSources, label).toBeUndefined();

  expect(res.success).toBe(true);
  expect(res.responseSource).toBe("fresh");
  expect(res.cached).toBe(false);
}

function checkHtml(record: ResourceRecord, html: string, label: string): void {
  expect(html, label).not.toMatch(/<script/i);
  const { tag, attributes, rest } = openingTagAttributes(html);
  const expectedTag = record.provider ? "iframe" : ({ image: "img", video: "video", audio: "audio" } as Record<string, string>)[record.category] ?? "a";
  expect(tag, label).toBe(expectedTag);
  const src = attributes.src ?? attributes.href;
  expect(src, label).toBe(record.provider ? record.provider.embedUrl : record.probe.finalUrl);
  if (tag === "img") expect(rest, label).toBe("");
  else {
    const text = rest.slice(0, rest.length - `</${tag}>`.length);
    expect(rest.endsWith(`</${tag}>`) && !/[<>"]/.test(text), `${label}: element text ${rest}`).toBe(true);
  }
  // Where the title is used, it must come back intact after unescaping (the value was escaped, not mangled).
  const title = record.results.title ?? record.probe.title;
  if (title && tag === "img") expect(attributes.alt, label).toBe(title);
  if (title && tag === "iframe") expect(attributes.title, label).toBe(title);
  if (title && tag === "a") expect(rest.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => html5Entities[e]!), label).toBe(`${title}</a>`);
}

describe("project(): SPEC 4.3 invariants over every profile x category x scenario x fields x expand", () => {
  for (const kind of recordKinds) {
    for (const scenario of scenarios) {
      const record = buildRecord(kind, scenario, { headers: { "x-frame-options": "SAMEORIGIN", etag: '"v1"' } });
      it(`${kind} / ${scenario}`, () => {
        const before = structuredClone(record);
        const baseline = inspect(record, { profile: "standard" });
        for (const profile of inspectProfiles) {
          for (const fields of fieldVariants) {
            for (const ex of expandVariants) checkInvariants(kind, record, profile, { fields, ...ex }, baseline);
          }
        }
        // Pure: the record is untouched and a repeat call answers the same.
        expect(record).toStrictEqual(before);
        expect(project(record, { profile: "full", responseSource: "cache" })).toStrictEqual(project(record, { profile: "full", responseSource: "cache" }));
      });
    }
  }
});

describe("processing (SPEC 3)", () => {
  for (const kind of recordKinds) {
    for (const scenario of scenarios) {
      it(`${kind} / ${scenario}: counts every registered stage once, failures as completed`, () => {
        const record = buildRecord(kind, scenario);
        const p = deriveProcessing(record);
        const registered = stagesByCategory[record.category];
        expect([...p.completedStages, ...p.pendingStages].sort()).toStrictEqual([...registered].sort());
        const failed = registered.filter((s) => record.stages[s]?.state === "failed");
        if (failed.length > 0) expect(p.failedStages).toStrictEqual(failed);
        else expect(p).not.toHaveProperty("failedStages");
        expect(p.failedStages ?? []).toSatisfy((f: StageName[]) => f.every((s) => p.completedStages.includes(s)));
        expect(p.completion).toBeCloseTo(p.completedStages.length / registered.length, 2);
        expect(p.status).toBe(p.pendingStages.length === 0 ? "complete" : "partial");
        expect(p.enrichmentsPending).toBe(p.pendingStages.length > 0);
        if (p.status === "complete") expect(p.completion).toBe(1);
        else expect(p.completion).toBeLessThan(1);
      });
    }
  }

  it("scenarios mean what they say", () => {
    expect(deriveProcessing(buildRecord("image", "initial"))).toStrictEqual({
      status: "partial", completion: 0.29, enrichmentsPending: true,
      completedStages: ["semantic", "mediaFormat"],
      pendingStages: ["metadata:image", "metadata:provenance", "preview:thumbnail", "preview:blurhash", "preview:palette"],
    });
    expect(deriveProcessing(buildRecord("image", "failedPending"))).toStrictEqual({
      status: "partial", completion: 0.86, enrichmentsPending: true,
      completedStages: ["semantic", "mediaFormat", "metadata:image", "metadata:provenance", "preview:thumbnail", "preview:palette"],
      pendingStages: ["preview:blurhash"],
      failedStages: ["preview:thumbnail", "preview:palette"],
    });
    expect(deriveProcessing(buildRecord("youtube", "failed"))).toMatchObject({ status: "complete", completion: 1, failedStages: ["oembed"] });
  });

  it("a stage missing from the record is pending, not silently complete", () => {
    const record = buildRecord("video", "done");
    delete record.stages["preview:palette"];
    expect(deriveProcessing(record)).toMatchObject({ status: "partial", pendingStages: ["preview:palette"] });
  });
});

describe("profile rules (SPEC 4.3)", () => {
  for (const kind of recordKinds) {
    for (const scenario of scenarios) {
      it(`${kind} / ${scenario}: fast namespaces are a proper subset of full's`, () => {
        const record = buildRecord(kind, scenario);
        const fast = Object.keys(inspect(record, { profile: "fast" }).data);
        const full = Object.keys(inspect(record, { profile: "full" }).data);
        expect(full).toEqual(expect.arrayContaining(fast));
        expect(full.length).toBeGreaterThan(fast.length);
        expect(full).toContain("diagnostics");
      });
    }
  }

  it("standard shows generated previews as null while pending and populated when done", () => {
    const pending = inspect(buildRecord("image", "initial"), { profile: "standard" }).data;
    expect(pending.preview).toStrictEqual({ thumbnail: null, placeholder: null, palette: null, dominantColor: null });
    expect(pending.metadata).toMatchObject({ image: null });
    expect(pending.metadata).not.toHaveProperty("video");
    const done = inspect(buildRecord("image", "done"), { profile: "standard" }).data;
    expect(done.preview).toStrictEqual({
      thumbnail: { url: "/api/v1/thumbnails/abc123.webp", dimensions: "320x213" },
      placeholder: { type: "blurhash", value: "LEHV6nWB2yk8pyo0adR*.7kCMdnj" },
      palette: { dominant: "#3a7bd5" },
      dominantColor: "#3a7bd5",
    });
    expect(done.metadata?.image).toStrictEqual({ colorSpace: "srgb", hasAlpha: true, width: 1200, height: 800 });
  });

  it("a done stage that produced nothing is omitted, not null", () => {
    const record = buildRecord("video", "done");
    delete record.results.thumbnail;
    const data = inspect(record, { profile: "standard" }).data;
    expect(data.preview).not.toHaveProperty("thumbnail");
    expect(data.preview?.placeholder).not.toBeNull();
  });

  it("a failed stage's stale result is not shown", () => {
    const record = buildRecord("image", "failed", { results: { thumbnail: { url: "/api/v1/thumbnails/stale.webp" }, dominantColor: "#000000" } });
    const data = inspect(record, { profile: "full" }).data;
    expect(data.preview).toStrictEqual({ placeholder: { type: "blurhash", value: "LEHV6nWB2yk8pyo0adR*.7kCMdnj" } });
  });

  it("full carries integer timings: total, semantic, mediaFormat and preview", () => {
    const data = inspect(buildRecord("video", "done"), { profile: "full" }).data;
    expect(data.diagnostics?.timings).toMatchObject({ total: 187, semantic: 4, mediaFormat: 14 });
    expect(data.diagnostics?.timings.preview).toSatisfy(Number.isInteger);
    expect(data.diagnostics?.timings["preview:thumbnail"]).toBe(45); // 3.7 + 4 * 10.25
  });

  it("full still reports a total when the record did not store one (wall time of the stages)", () => {
    const record = buildRecord("image", "done", { timings: {} });
    const timings = inspect(record, { profile: "full" }).data.diagnostics?.timings;
    const ends = Object.values(record.stages).map((s) => s!.finishedAt!);
    const starts = Object.values(record.stages).map((s) => s!.startedAt!);
    expect(timings?.total).toBe(Math.round(Math.max(...ends) - Math.min(...starts)));
  });

  it("fast keeps provider-native previews and metadata, hides nothing for providers", () => {
    const yt = inspect(buildRecord("youtube", "initial"), { profile: "fast" });
    expect(yt.data.preview).toStrictEqual({ thumbnail: { url: "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" } });
    expect(yt.projection.hiddenFields).toStrictEqual([]);
    expect(yt.data.provider).toStrictEqual({ name: "youtube", confidence: 1, detectionMethod: "url-parser" });
    expect(yt.data.playback).toStrictEqual({
      strategy: "iframe", component: "iframe", embedUrl: "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", streamable: false, downloadable: false,
    });
    // Spotify has no thumbnail in its URL: pending until oEmbed answers, then the oEmbed thumbnail is native.
    expect(inspect(buildRecord("spotify", "initial"), { profile: "standard" }).data.preview).toStrictEqual({ thumbnail: null });
    expect(inspect(buildRecord("spotify", "initial"), { profile: "fast" }).data).not.toHaveProperty("preview");
    expect(inspect(buildRecord("spotify", "done"), { profile: "fast" }).data.preview).toStrictEqual({
      thumbnail: { url: "https://image-cdn-ak.spotifycdn.com/image/ab67616d00001e02" },
    });
    expect(inspect(buildRecord("spotify", "failed"), { profile: "standard" }).data).not.toHaveProperty("preview");
  });

  it("providerData carries oEmbed: null pending, the answer when done, omitted on failure", () => {
    expect(inspect(buildRecord("youtube", "initial"), { profile: "standard" }).data.providerData?.oembed).toBeNull();
    const done = inspect(buildRecord("youtube", "done"), { profile: "standard" }).data;
    expect(done.providerData?.oembed).toMatchObject({ provider_name: "YouTube" });
    expect(done.providerData?.embeddable).toBe(true);
    expect(done.semantic).toStrictEqual({ kind: "embed-media", semanticType: "embedded-video", title: expect.any(String) });
    const failed = inspect(buildRecord("youtube", "failed"), { profile: "full" }).data;
    expect(failed.providerData).toBeDefined();
    expect(failed.providerData).not.toHaveProperty("oembed");
    expect(inspect(buildRecord("spotify", "done"), { profile: "full" }).data.semantic?.semanticType).toBe("embedded-audio");
  });

  it("audio never has visual enrichments or other category sub-objects", () => {
    for (const scenario of scenarios) {
      for (const profile of ["standard", "full"] as const) {
        const data = inspect(buildRecord("audio", scenario), { profile }).data;
        expect(data.preview).toStrictEqual({ waveform: null, spectrogram: null });
        expect(data.metadata).not.toHaveProperty("image");
        expect(data.metadata).not.toHaveProperty("video");
      }
    }
    expect(inspect(buildRecord("audio", "done"), { profile: "standard" }).data.metadata?.audio?.sampleRate).toBe(44100);
  });

  it("a web page has no preview and hides nothing in fast", () => {
    for (const profile of inspectProfiles) {
      const res = inspect(buildRecord("webpage", "done"), { profile });
      expect(res.data).not.toHaveProperty("preview");
      expect(res.projection.hiddenFields).toStrictEqual([]);
      expect(res.data.semantic).toStrictEqual({ kind: "webpage", title: expect.any(String) });
      expect(res.data.playback).toMatchObject({ strategy: "link", component: "a" });
    }
  });

  it("fields=diagnostics outside full, or a namespace the resource lacks, leaves no empty objects", () => {
    expect(inspect(buildRecord("image", "done"), { profile: "standard", fields: ["diagnostics"] }).data).toStrictEqual({});
    expect(inspect(buildRecord("image", "done"), { profile: "fast", fields: ["preview"] }).data).toStrictEqual({});
    expect(inspect(buildRecord("video", "done"), { profile: "full", fields: ["provider"] }).data).toStrictEqual({});
  });

  it("responseSource cache marks the answer cached", () => {
    const res = project(buildRecord("image", "done"), { profile: "standard", responseSource: "cache" }) as InspectResponse;
    expect(res).toMatchObject({ responseSource: "cache", cached: true });
    const joined = project(buildRecord("image", "done"), { profile: "standard", responseSource: "inflight" }) as InspectResponse;
    expect(joined).toMatchObject({ responseSource: "inflight", cached: false });
  });
});

describe("heavy fields and debug output", () => {
  it("playback.html escapes a hostile title in every category", () => {
    for (const kind of recordKinds) {
      const record = buildRecord(kind, "done");
      const html = inspect(record, { profile: "standard" }).data.playback!.html!;
      expect(html, kind).not.toContain("<script>");
      if (kind !== "video" && kind !== "audio") expect(html, kind).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
      if (kind === "image") expect(html).toContain('alt="He said &quot;hi&quot; &amp; it&#39;s');
      if (kind === "image") expect(html).toContain('src="https://cdn.example.com/photos/it&#39;s-a-cat.png"');
    }
  });

  it("a video's poster is its generated thumbnail once done", () => {
    const { attributes } = openingTagAttributes(inspect(buildRecord("video", "done"), { profile: "standard" }).data.playback!.html!);
    expect(attributes).toMatchObject({ src: "https://cdn.example.com/clips/intro.mp4", poster: "/api/v1/thumbnails/abc123.webp", controls: true });
    expect(openingTagAttributes(inspect(buildRecord("video", "initial"), { profile: "standard" }).data.playback!.html!).attributes).not.toHaveProperty("poster");
  });

  it("rawHeaders needs debug; headers pass through and set-cookie never appears", () => {
    const headers = { "content-type": "image/png", "x-frame-options": "DENY", "set-cookie": "session=secret; HttpOnly", "Set-Cookie": "b=2" };
    const record = buildRecord("image", "done", { headers });
    expect(inspect(record, { profile: "standard", expand: ["rawHeaders"] }).data).not.toHaveProperty("network");
    expect(inspect(record, { profile: "standard", debug: true }).data).not.toHaveProperty("network");
    const shown = inspect(record, { profile: "fast", expand: ["rawHeaders"], debug: true, fields: ["identity"] }).data;
    expect(shown.network?.headers).toStrictEqual({ "content-type": "image/png", "x-frame-options": "DENY", "cache-control": "max-age=60" });
    expect(JSON.stringify(shown)).not.toMatch(/secret|set-cookie/i);
  });
});
