import { formatBytes } from "../format/index.ts";
import { sharePageUrl } from "../format/share-id.ts";
import type { InspectData } from "../schemas/inspect-data.ts";
import type { ResourceRecord } from "../schemas/record.ts";
import type { StageName } from "../schemas/stages.ts";
import { registeredStages, stagesInGroup } from "../stages/index.ts";
import { renderElement, toHtml } from "./html-tags.ts";
import { playbackCodecs } from "./playback-codecs.ts";
import { stageErrors, stageView } from "./processing.ts";
import { topLevelSources } from "./fact-sources.ts";
import { stageFields } from "./stage-fields.ts";
import { accessibilityOf } from "./accessibility.ts";

/**
 * Every namespace the record can fill, before any profile rule. Each enrichment follows one rule:
 * `null` while its stage is pending, the value once done, omitted when unsupported or when the stage failed.
 */
export function buildFullData(record: ResourceRecord, baseUrl?: string): InspectData {
  const title = record.results.title ?? record.probe.title;
  return {
    identity: {
      url: record.url,
      finalUrl: record.probe.finalUrl,
      ...(record.provider ? { canonicalUrl: record.provider.canonicalUrl } : {}),
      mime: record.probe.mime,
      ...(baseUrl && isShareable(record) ? { shareUrl: sharePageUrl(baseUrl, record.url) } : {}),
    },
    semantic: {
      kind: record.provider ? "embed-media" : record.category === "webpage" ? "webpage" : "direct-media",
      semanticType: record.provider?.semanticType ?? (record.category === "webpage" || record.category === "embedded" ? undefined : record.category),
      ...(title ? { title } : {}),
      ...(isDirectMedia(record) && record.probe.evidence ? { enrichmentSources: record.probe.evidence } : {}),
      ...(record.probe.segment ? { segment: record.probe.segment } : {}),
    },
    ...(record.provider
      ? { provider: { name: record.provider.name, confidence: record.provider.confidence, detectionMethod: record.provider.detectionMethod } }
      : {}),
    playback: buildPlayback(record, title, baseUrl),
    metadata: buildMetadata(record),
    preview: buildPreview(record),
    ...(record.provider ? { providerData: buildProviderData(record) } : {}),
    diagnostics: {
      timings: buildTimings(record),
      ...withStageErrors(record),
      stages: buildStageDiagnostics(record),
      bytesFetched: buildBytes(record),
      ...(record.transfer ? { bytesPulled: record.transfer.bytes, requests: record.transfer.requests, redirects: record.transfer.redirects } : {}),
      ...(record.transfer?.engineMs !== undefined ? { engineMs: record.transfer.engineMs } : {}),
    },
    network: { headers: withoutCookies(record.probe.headers) },
    ...(record.category === "webpage" ? { page: buildPage(record) } : {}),
    ...accessibilityOf(record),
    ...provenanceOf(record),
  };
}

/** C2PA and the AI declaration (direct media): null while its stage is pending, omitted when it failed. */
function provenanceOf(record: ResourceRecord): Pick<InspectData, "provenance"> {
  const value = staged(record, "metadata:provenance", record.results.provenance);
  return value === undefined ? {} : { provenance: value };
}

/** Page facts; `media` is null while the named media is being inspected, omitted when there is none. */
function buildPage(record: ResourceRecord): InspectData["page"] {
  const media = record.results.pageMediaUrls ? staged(record, "page:media", record.results.pageMedia) : undefined;
  return { ...record.results.page, ...(media !== undefined ? { media } : {}) };
}

function isDirectMedia(record: ResourceRecord): boolean {
  return !record.provider && (record.category === "image" || record.category === "video" || record.category === "audio");
}

function buildPlayback(record: ResourceRecord, title: string | undefined, baseUrl: string | undefined): InspectData["playback"] {
  const element = renderElement(record, title, baseUrl);
  const direct = record.category === "image" || record.category === "video" || record.category === "audio";
  const strategy = record.provider ? "iframe" : direct ? "native" : "link";
  const component = record.provider ? "iframe" : element.tag === "a" ? "a" : element.tag;
  return {
    strategy,
    component: component as "video" | "audio" | "img" | "iframe" | "a",
    ...(record.provider ? { embedUrl: record.provider.embedUrl } : {}),
    // An adaptive stream is delivered in segments, whatever the manifest's own server does with ranges.
    streamable: record.provider ? false : record.results.streaming ? true : record.probe.streamable,
    // A manifest is a list of segments, not the media as one file.
    downloadable: !record.provider && direct && !record.results.streaming,
    html: toHtml(element, element.tag === "a" ? (title ?? record.probe.finalUrl) : ""),
    // HLS and DASH play natively only in Safari; elsewhere a Media Source Extensions player (hls.js, dash.js).
    ...(record.results.streaming ? { requiresMse: true } : {}),
    ...playbackCodecs(record),
    ...(record.results.live && record.results.streaming?.live ? { live: record.results.live } : {}),
  };
}

/** Stage result, or null while pending; undefined (omitted) when failed or not registered. */
function staged<T>(record: ResourceRecord, stage: StageName, value: T | undefined): T | null | undefined {
  const view = stageView(record, stage);
  if (view === "pending") return null;
  if (view === "done") return value;
  return undefined;
}

function buildMetadata(record: ResourceRecord): InspectData["metadata"] {
  const { sizeBytes, filename } = record.probe;
  // The streams (and the loudness the waveform stage adds to audio) come from the stage registry.
  const streams = stageFields(record, "metadata") as Pick<NonNullable<InspectData["metadata"]>, "image" | "video" | "audio">;
  const sources = topLevelSources(record, streams);
  return {
    ...(filename && !record.provider ? { filename } : {}),
    ...(sizeBytes !== undefined && !record.provider ? { size: { bytes: sizeBytes, formatted: formatBytes(sizeBytes) } } : {}),
    ...streams,
    ...(record.results.streaming ? { streaming: record.results.streaming } : {}),
    ...(record.results.tracks && !record.provider ? { tracks: record.results.tracks } : {}),
    ...(record.results.chapters?.length && !record.provider ? { chapters: record.results.chapters } : {}),
    ...(record.results.protection?.encrypted && !record.provider ? { protection: record.results.protection } : {}),
    ...(sources ? { sources } : {}),
  };
}

/**
 * The preview fields the registry's stages fill. A provider's preview is its own thumbnail (or oEmbed's); audio
 * keeps the contract's reserved spectrogram.
 */
function buildPreview(record: ResourceRecord): InspectData["preview"] {
  if (record.provider) {
    const native = record.provider.thumbnailUrl ?? oembedThumbnail(record);
    if (native) return { thumbnail: { url: native } };
    return { thumbnail: staged(record, "oembed", undefined) };
  }
  const fields = stageFields(record, "preview") as NonNullable<InspectData["preview"]>;
  return record.category === "audio" ? { ...fields, spectrogram: null } : fields;
}

function oembedThumbnail(record: ResourceRecord): string | undefined {
  const url = record.results.oembed?.["thumbnail_url"];
  return typeof url === "string" && /^https?:\/\//.test(url) ? url : undefined;
}

function buildProviderData(record: ResourceRecord): InspectData["providerData"] {
  const p = record.provider!;
  return {
    id: p.id,
    canonicalUrl: p.canonicalUrl,
    embedUrl: p.embedUrl,
    ...(p.thumbnailUrl ? { thumbnailUrl: p.thumbnailUrl } : {}),
    oembed: staged(record, "oembed", record.results.oembed),
    ...(record.results.embeddable !== undefined ? { embeddable: record.results.embeddable } : {}),
  };
}

/** The probe already drops set-cookie; dropped again here so no record can leak a cookie through the API. */
function withoutCookies(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^set-cookie2?$/i.test(name)));
}

function withStageErrors(record: ResourceRecord): { stageErrors?: ReturnType<typeof stageErrors> } {
  const errors = stageErrors(record);
  return errors.length > 0 ? { stageErrors: errors } : {};
}

/** State, engine, time and failure reason of every registered stage (the playground's stage chips and bars). */
function buildStageDiagnostics(record: ResourceRecord): NonNullable<InspectData["diagnostics"]>["stages"] {
  const out: NonNullable<NonNullable<InspectData["diagnostics"]>["stages"]> = {};
  for (const stage of registeredStages(record)) {
    const entry = record.stages[stage];
    out[stage] = {
      state: entry?.state ?? "pending",
      ...(entry?.engine ? { engine: entry.engine } : {}),
      ...(entry?.durationMs !== undefined ? { durationMs: Math.round(entry.durationMs) } : {}),
      ...(entry?.error ? { error: entry.error } : {}),
      ...(entry?.bytesPulled !== undefined ? { bytesPulled: entry.bytesPulled } : {}),
      ...(entry?.requests !== undefined ? { requests: entry.requests } : {}),
      ...(entry?.method !== undefined ? { method: entry.method } : {}),
    };
  }
  return out;
}

function buildBytes(record: ResourceRecord): NonNullable<InspectData["diagnostics"]>["bytesFetched"] {
  const runner = record.results.runnerBytesFetched;
  return { worker: record.probe.bytesFetched, ...(runner !== undefined ? { runner } : {}) };
}


/**
 * Integer millisecond timings. `preview` is the longest preview stage when they ran separately (they run
 * side by side); `total` falls back to the stages' wall time when the record stored none.
 */
function buildTimings(record: ResourceRecord): Record<string, number> {
  const timings: Record<string, number> = {};
  for (const [key, ms] of Object.entries(record.timings)) timings[key] = Math.round(ms);
  if (timings.preview === undefined) {
    const parts = stagesInGroup("preview").map((s) => record.stages[s]?.durationMs).filter((v): v is number => v !== undefined);
    if (parts.length > 0) timings.preview = Math.round(Math.max(...parts));
  }
  for (const [stage, entry] of Object.entries(record.stages)) {
    if (timings[stage] === undefined && entry?.durationMs !== undefined) timings[stage] = Math.round(entry.durationMs);
  }
  if (timings.total === undefined) {
    const ran = Object.values(record.stages).filter((s) => s?.startedAt !== undefined && s.finishedAt !== undefined);
    if (ran.length > 0) {
      timings.total = Math.round(Math.max(...ran.map((s) => s!.finishedAt!)) - Math.min(...ran.map((s) => s!.startedAt!)));
    }
  }
  return timings;
}

/** What the share page (and oEmbed) serve: media with a player, or a provider's embeddable page. */
function isShareable(record: ResourceRecord): boolean {
  if (record.provider) return record.results.embeddable !== false;
  return record.category === "video" || record.category === "audio" || record.category === "image";
}
