import type { Config } from "../config/config.ts";
import { addTransfer } from "../record/transfer.ts";
import { fetchPolicy, OriginBudget, type FetchPolicy } from "../fetch/index.ts";
import type { ProbeResult, ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import type { MediaCategory } from "../../shared/schemas/stages.ts";
import { createRecord } from "../record/create-record.ts";
import { applyInlineOutput, failStages, finishStage, registerFound } from "../record/stage-state.ts";
import { coverArtEvidence } from "../probe/cover-art-evidence.ts";
import type { EngineOutput } from "../../shared/stages/index.ts";
import { probeUrl } from "../probe/probe.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { categoryOf } from "../probe/sniff-mime.ts";
import { decideCategory, hasTrackList } from "../probe/evidence.ts";
import { imageMetadataOf, readImageHeaderFrom } from "../image/index.ts";
import { readEdgeMediaFacts, type EdgeMediaFacts } from "../probe/edge-media-facts.ts";
import { discoverProvider, readPageHead } from "./page-discovery.ts";
import { ApiError } from "../errors/api-error.ts";
import { ManifestError, manifestMimes, manifestText, readStream, recognizeManifest } from "../manifest/index.ts";
import { writeStreamResults, type StreamOutcome } from "./stream-results.ts";
import { writePageResults } from "./page-results.ts";
import { endSegmentStages, segmentOf } from "./segment-stages.ts";
import { encryptedReason, needsLicence, trackResults } from "../../shared/stages/track-results.ts";
import { registeredStages, stagesInGroup } from "../../shared/stages/index.ts";
import type { HeadElements } from "../page/index.ts";
import { finishProvenanceStage } from "./provenance-stage.ts";
import { hasC2paStore } from "../probe/c2pa-manifest.ts";
import { maxMetadataBytes } from "../config/limits.ts";
import { metadataTailOf } from "./provenance-tail-plan.ts";
import { waveHasChunksAfterData } from "../probe/riff-trailing-chunks.ts";
import { jpegMetadataEnd } from "../probe/jpeg-metadata-extent.ts";
import { withMoofProtection } from "../probe/moof-protection.ts";

const isBmff = (mime: string) => /^(video|audio)\/(mp4|quicktime|3gpp|iso\.segment)$/.test(mime);

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
  /** An image's bytes read from its start (the probe's head and what followed it): the edge stages fetch only the rest. */
  imageHead?: Uint8Array;
  /** The bytes read from the file's start, whatever the category: handed to the media runner with a direct call. */
  head?: Uint8Array;
  /** The bytes read at the file's end (the suffix read, a moov-last MP4's moov), handed over with the head. */
  tail?: { offset: number; bytes: Uint8Array };
}

/** What the steps learn, in order; each step reads what earlier ones wrote. */
interface Inspection {
  input: FirstInspectionInput;
  config: Config;
  policy: FetchPolicy;
  /** The inspection's origin budget (in `policy`); oEmbed discovery, with its own deadline, counts against it too. */
  budget: OriginBudget;
  started: number;
  now: number;
  probedAt: number;
  probe: ProbeResult;
  head: Uint8Array;
  source: RangeByteSource;
  category: MediaCategory;
  facts?: EdgeMediaFacts;
  discovered?: Awaited<ReturnType<typeof discoverProvider>>;
  /** A web page's head elements (meta, link, JSON-LD), for page facts. */
  pageHead?: HeadElements;
  /** An HLS playlist or DASH manifest, and what reading it gave. */
  stream?: StreamOutcome;
  record?: ResourceRecord;
}

type Step = (inspection: Inspection) => Promise<void> | void;

/** The direct-URL inspection, one step per line, in the order they run. */
const steps: readonly Step[] = [
  readStreamManifest,
  decideCategoryFromEvidence,
  discoverPageProvider,
  registerStages,
  finishCoreStages,
  finishInlineMetadata,
  endSegmentStagesStep,
  finishProvenance,
  writeStreamFacts,
  writePageFacts,
];

export async function firstInspection(input: FirstInspectionInput, config: Config): Promise<FirstInspection> {
  const started = performance.now();
  const now = Date.now();
  if (input.provider) return { record: providerRecord(input, config, now) };
  // The inspection starts here: its origin budget is created with it and passed down in the fetch policy.
  const budget = new OriginBudget();
  const policy = fetchPolicy(config, budget);
  const { probe, head, source } = await probeUrl(input.url, policy, config);
  const inspection: Inspection = {
    input, config, policy, budget, started, now, probedAt: performance.now(), probe, head, source,
    category: "webpage",
  };
  for (const step of steps) await step(inspection);
  const record = inspection.record!;
  record.timings.total = Math.round(performance.now() - started);
  // Every step's reads (an image header walk included) are the probe's bytes.
  record.probe.bytesFetched = source.bytesFetched;
  // Every request and byte of the steps (playlists, page head, oEmbed discovery included): the budget's ledger.
  addTransfer(record, budget.transfer());
  // The bytes held from the start (the head, and any header reads joined to it): the edge stages and the runner
  // fetch only the rest.
  const prefix = source.prefix();
  const tail = source.suffix();
  return { record, head: prefix, ...(tail ? { tail } : {}), ...(record.category === "image" ? { imageHead: prefix } : {}) };
}

/** Provider pages are described by URL parsing and oEmbed; their HTML is never downloaded. */
function providerRecord(input: FirstInspectionInput, config: Config, now: number): ResourceRecord {
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
  return record;
}

/**
 * Category from evidence: the container's track list where it declares one in the first bytes (MP4, Matroska,
 * Ogg, ASF), else the sniffed MIME family (bytes win over Content-Type). Cover art never makes a file a video.
 */
async function decideCategoryFromEvidence(i: Inspection): Promise<void> {
  if (i.stream) return; // a manifest: the manifest is the evidence
  const sniffed = categoryOf(i.probe.mime);
  if (hasTrackList(i.probe.mime) || sniffed === "audio") i.facts = await readEdgeMediaFacts(i.source, i.probe.mime, i.head);
  const decision = decideCategory(i.probe.mime, i.facts?.tracks);
  i.category = decision.category;
  i.probe.mime = decision.mime;
  i.probe.evidence = [decision.evidence, ...(i.facts?.durationSource ? [`duration:${i.facts.durationSource}`] : [])];
  const segment = segmentOf(i.probe.mime, i.facts, i.head);
  if (segment) i.probe.segment = segment;
  i.probe.bytesFetched = i.source.bytesFetched;
}

/**
 * An HLS playlist or DASH manifest (bytes, then Content-Type or extension): video (or audio when every
 * rendition is audio), described by the manifest and at most one media playlist, never a segment.
 */
async function readStreamManifest(i: Inspection): Promise<void> {
  const protocol = recognizeManifest(i.head, i.probe.declaredMime, i.probe.finalUrl);
  if (!protocol) return;
  i.probe.mime = manifestMimes[protocol];
  const first = await manifestText(i.head, i.source, i.probe.streamable, i.policy);
  try {
    i.stream = { protocol, facts: await readStream(protocol, first, i.policy) };
  } catch (err) {
    // The manifest was fetched; what it names was refused or is broken: the stages fail with the reason.
    if (err instanceof ManifestError) i.stream = { protocol, failure: err.reason };
    else if (err instanceof ApiError) i.stream = { protocol, failure: `${err.code}: ${err.publicMessage}` };
    else throw err;
  }
  i.category = i.stream.facts?.audioOnly ? "audio" : "video";
  i.probe.evidence = [`manifest:${protocol === "hls" ? "m3u8-parser" : "mpd-parser"}`];
  i.probe.bytesFetched = i.source.bytesFetched;
}

/** An HTML page: its title, and a provider found through oEmbed discovery makes it embedded media. */
async function discoverPageProvider(i: Inspection): Promise<void> {
  if (i.probe.mime !== "text/html") return;
  const page = await readPageHead(i.head, i.source, i.probe.finalUrl, i.policy);
  if (page.title) i.probe.title = page.title;
  i.pageHead = page.elements;
  if (page.oembedUrl) {
    i.probe.oembedDiscoveryUrl = page.oembedUrl;
    i.discovered = await discoverProvider(i.probe.finalUrl, page.oembedUrl, i.config, i.budget);
    if (i.discovered) i.category = "embedded";
  }
  i.probe.bytesFetched = i.source.bytesFetched;
}

/** The record, with every stage of the decided category pending. */
function registerStages(i: Inspection): void {
  i.record = createRecord({
    ...i.input,
    category: i.category,
    probe: i.probe,
    ...(i.discovered ? { provider: i.discovered.provider } : {}),
    ttlSeconds: i.config.RECORD_TTL_SECONDS,
    now: i.now,
  });
}

function finishCoreStages(i: Inspection): void {
  const record = i.record!;
  if (i.discovered) {
    record.results.oembed = i.discovered.oembed;
    if (i.discovered.oembed.title) record.results.title = i.discovered.oembed.title;
    record.results.embeddable = true;
    finishStage(record, "oembed", { state: "done", durationMs: performance.now() - i.probedAt, engine: "provider" });
  }
  const semanticMs = performance.now() - i.probedAt;
  finishStage(record, "semantic", { state: "done", durationMs: semanticMs, engine: "edge" });
  finishStage(record, "mediaFormat", { state: "done", durationMs: i.probedAt - i.started, engine: "edge" });
  record.timings = { mediaFormat: Math.round(i.probedAt - i.started), semantic: Math.round(semanticMs) };
}

/**
 * Metadata the bytes already read declare: image dimensions, alpha and colour space from the header; audio
 * and video facts from the container (a video's only when it has duration and size, so `fast` has them).
 * The registry's inline-capable stages take what fills them; the rest wait for the edge or the runner.
 */
async function finishInlineMetadata(i: Inspection): Promise<void> {
  const record = i.record!;
  const image = record.category === "image" ? imageMetadataOf(await readImageHeaderFrom(i.source, i.head)) : undefined;
  // An initialization segment or a raw byte stream has no duration to wait for: its header's facts are all there is.
  const video = (i.facts?.video?.duration || i.facts?.segment === "init" || i.facts?.timeless) && i.facts?.video?.width ? i.facts.video : undefined;
  const metadata: NonNullable<EngineOutput["metadata"]> = {
    ...(image ? { image } : {}),
    ...(i.facts?.audio ? { audio: i.facts.audio } : {}),
    ...(video ? { video } : {}),
    ...(i.facts?.codecs ? { codecs: i.facts.codecs } : {}),
    ...i.facts?.trackFacts,
  };
  applyInlineOutput(record, { metadata }, performance.now() - i.probedAt);
  // Cover art the held bytes show (or may hold past them) is the audio's thumbnail: the runner decodes it.
  if (record.category === "audio" && coverArtEvidence(i.source.prefix(), i.source.suffix()) !== "none") registerFound(record, "preview:thumbnail");
  // Tracks, chapters and encryption the header declared are shown even while the runner completes the rest.
  // Movie fragments held (a media segment, a fragmented file's first moof) may name key systems the moov does not.
  const trackFacts = isBmff(record.probe.mime) ? withMoofProtection(i.facts?.trackFacts, i.source.prefix()) : i.facts?.trackFacts;
  record.results = { ...trackResults(trackFacts), ...record.results };
  // Encrypted samples are not decoded for a picture: the previews end here, with the reason.
  if (needsLicence(record.results.protection)) failStages(record, stagesInGroup("preview", registeredStages(record)), encryptedReason, "edge");
}

function endSegmentStagesStep(i: Inspection): void {
  endSegmentStages(i.record!);
}

/** Capture, rights and provenance from the bytes already read (no further request). */
async function finishProvenance(i: Inspection): Promise<void> {
  const record = i.record!;
  // An HLS/DASH stream: only the playlist was read, which carries none of these (the answer says what was seen).
  // A file that carries Content Credentials: their hashes cover every byte, so a small one is read whole here, once
  // (an image's previews then reuse the bytes). A larger one keeps its manifest's facts without the hash check.
  const size = i.source.size;
  // A small WAV with chunks after its samples is read whole too: its Content Credentials sit there.
  const held = i.source.prefix();
  if (size !== undefined && size <= maxMetadataBytes && (hasC2paStore(held) || waveHasChunksAfterData(held, size))) {
    await i.source.read(0, size).catch(() => undefined);
  }
  const { moov, tail: moovTail, refused } = i.facts?.moov ? { moov: i.facts.moov, tail: undefined, refused: undefined } : await metadataTailOf(i.source, record);
  // A JPEG whose EXIF/XMP/IPTC segments run past what is held: read whole by the later stage, so fast keeps its reads.
  const tail = moovTail ?? (record.probe.mime === "image/jpeg" ? await jpegMetadataTail(i.source, size) : undefined);
  await finishProvenanceStage(record, {
    mime: record.probe.mime,
    prefix: i.source.prefix(),
    ...(i.source.size !== undefined ? { size: i.source.size } : {}),
    ...(moov ? { moov } : {}),
    trustAnchors: i.config.C2PA_TRUST_ANCHORS,
  }, performance.now(), tail, refused);
}

/** The bytes [0, end of the metadata segments) when they run past the prefix (the segment walk reads only marker headers). */
async function jpegMetadataTail(source: Inspection["source"], size: number | undefined): Promise<{ offset: number; length: number } | undefined> {
  const end = await jpegMetadataEnd((offset, length) => source.read(offset, length), Math.min(size ?? maxMetadataBytes, maxMetadataBytes)).catch(() => 0);
  return end > source.prefix().length ? { offset: 0, length: end } : undefined;
}

function writeStreamFacts(i: Inspection): void {
  if (i.stream) writeStreamResults(i.record!, i.stream, performance.now() - i.probedAt);
}

function writePageFacts(i: Inspection): void {
  if (i.record!.category === "webpage") writePageResults(i.record!, i.pageHead, i.probe.finalUrl, performance.now() - i.probedAt);
}
