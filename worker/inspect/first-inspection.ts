import type { Config } from "../config.ts";
import { fetchPolicy } from "../fetch/index.ts";
import type { ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import { createRecord, finishStage } from "../resource/create-record.ts";
import { probeUrl } from "../probe/probe.ts";
import { categoryOf } from "../probe/sniff-mime.ts";
import { decideCategory, hasTrackList } from "../probe/evidence.ts";
import { imageMetadataOf, readImageHeader } from "../enrich/image/index.ts";
import { readEdgeMediaFacts } from "../enrich/edge-audio-metadata.ts";
import { discoverProvider, readPageHead } from "./page-discovery.ts";

export interface FirstInspectionInput {
  key: string;
  url: string;
  normalizedUrl: string;
  provider?: ProviderRecord;
}

/**
 * Everything cheap enough to finish before the first answer: the Range probe, classification, and the
 * metadata readable from headers (image dimensions/colour, audio container facts via Range reads).
 */
export interface FirstInspection {
  record: ResourceRecord;
  /** The probe's first bytes of an image: the edge stages fetch only the rest (or nothing, if this is all). */
  imageHead?: Uint8Array;
}

export async function firstInspection(input: FirstInspectionInput, config: Config): Promise<FirstInspection> {
  const started = performance.now();
  const now = Date.now();
  if (input.provider) {
    // Provider pages are described by URL parsing and oEmbed; their HTML is never downloaded.
    const record = createRecord({
      ...input,
      category: "embedded",
      probe: { finalUrl: input.url, status: 200, mime: "text/html", streamable: false, bytesFetched: 0, redirects: 0, headers: {} },
      ttlSeconds: config.RECORD_TTL_SECONDS,
      now,
    });
    finishStage(record, "semantic", { state: "done", durationMs: 0, engine: "edge" });
    finishStage(record, "mediaFormat", { state: "done", durationMs: 0, engine: "edge" });
    record.timings = { semantic: 0, mediaFormat: 0 };
    return { record };
  }

  const policy = fetchPolicy(config);
  const { probe, head, source } = await probeUrl(input.url, policy, config);
  const probedAt = performance.now();
  // Category from evidence: the container's track list where it has one, else the sniffed MIME family.
  const facts = hasTrackList(probe.mime) || categoryOf(probe.mime) === "audio"
    ? await readEdgeMediaFacts(source, probe.mime, head)
    : undefined;
  const decision = decideCategory(probe.mime, facts?.tracks);
  let category = decision.category;
  probe.mime = decision.mime;
  probe.evidence = [decision.evidence, ...(facts?.durationSource ? [`duration:${facts.durationSource}`] : [])];
  probe.bytesFetched = source.bytesFetched;

  let discovered: Awaited<ReturnType<typeof discoverProvider>>;
  if (probe.mime === "text/html") {
    const page = await readPageHead(head, source, probe.finalUrl, policy);
    if (page.title) probe.title = page.title;
    if (page.oembedUrl) {
      probe.oembedDiscoveryUrl = page.oembedUrl;
      discovered = await discoverProvider(probe.finalUrl, page.oembedUrl, config);
      if (discovered) category = "embedded";
    }
    probe.bytesFetched = source.bytesFetched;
  }

  const record = createRecord({
    ...input,
    category,
    probe,
    ...(discovered ? { provider: discovered.provider } : {}),
    ttlSeconds: config.RECORD_TTL_SECONDS,
    now,
  });
  if (discovered) {
    record.results.oembed = discovered.oembed;
    if (discovered.oembed.title) record.results.title = discovered.oembed.title;
    record.results.embeddable = true;
    finishStage(record, "oembed", { state: "done", durationMs: performance.now() - probedAt, engine: "provider" });
  }
  const semanticMs = performance.now() - probedAt;
  finishStage(record, "semantic", { state: "done", durationMs: semanticMs, engine: "edge" });
  finishStage(record, "mediaFormat", { state: "done", durationMs: probedAt - started, engine: "edge" });
  record.timings = { mediaFormat: Math.round(probedAt - started), semantic: Math.round(semanticMs) };

  if (category === "image") {
    const image = imageMetadataOf(readImageHeader(head));
    if (image) {
      record.results.image = image;
      finishStage(record, "metadata:image", { state: "done", durationMs: 0, engine: "edge" });
    }
  }
  if (category === "audio" && facts?.audio) {
    record.results.audio = facts.audio;
    finishStage(record, "metadata:audio", { state: "done", durationMs: performance.now() - probedAt, engine: "edge" });
  }
  // The container's header holds the video facts: `fast` has them; the runner still makes the previews.
  if (category === "video" && facts?.video?.duration && facts.video.width) {
    record.results.video = facts.video;
    finishStage(record, "metadata:video", { state: "done", durationMs: performance.now() - probedAt, engine: "edge" });
  }
  record.timings.total = Math.round(performance.now() - started);
  return { record, ...(category === "image" ? { imageHead: head } : {}) };
}
