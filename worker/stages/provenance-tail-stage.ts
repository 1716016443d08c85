import type { Config } from "../config/config.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { C2pa, Capture, Provenance, Rights } from "../../shared/shapes/provenance.ts";
import { parseContentRange } from "../../shared/bytes/content-range.ts";
import { budgetAfter, fetchPolicy, readCapped, readHead, safeFetch } from "../fetch/index.ts";
import { maxC2paSidecarBytes } from "../config/limits.ts";
import { ApiError } from "../errors/api-error.ts";
import { aiDeclaration } from "../probe/ai-declaration.ts";
import { readSidecar } from "../probe/c2pa-sidecar.ts";
import { addTransfer } from "../record/transfer.ts";
import { finishStage } from "../record/stage-state.ts";
import { readMp4UserData } from "../probe/mp4-user-data.ts";
import { readImageTags } from "../probe/image-tags.ts";
import { declarationsOfImageTags } from "../probe/capture-rights.ts";
import { leftOut } from "./provenance-stage.ts";

/**
 * The later part of metadata:provenance, after the first answer (so `fast` keeps its round trips; `full` waits for
 * it), each part one bounded request: for an MP4/MOV whose user data lies past the bytes the first inspection read
 * (a moov after the mdat, walked sparsely), one Range read of what follows the moov's tracks (`probe.metadataTail`,
 * a few KiB, capped), never the file; for a JPEG whose metadata segments run past the head, the rest of them (the
 * same field, from the file's start, at most maxMetadataBytes; the head in hand is not read again); for a file that declares a sidecar C2PA manifest store, that store (capped).
 * What they give completes what the head gave (the C2PA facts, the movie header's creation time); a failed read
 * leaves its facts out with the reason and ends the stage done, as a malformed tag does inline.
 */
export function provenanceTailPending(record: ResourceRecord): boolean {
  return (record.probe.metadataTail !== undefined || record.probe.c2paSidecar !== undefined) && record.stages["metadata:provenance"]?.state === "pending";
}

/**
 * Returns a JPEG's bytes from its start to the end of its metadata segments when it read them (`held`, the image's
 * bytes from its start already in hand, spares reading them again; the caller keeps the longer prefix for the previews).
 */
export async function runProvenanceTailStage(record: ResourceRecord, config: Config, held?: Uint8Array): Promise<Uint8Array | undefined> {
  if (!provenanceTailPending(record)) return undefined;
  let jpegHead: Uint8Array | undefined;
  const tail = record.probe.metadataTail;
  const sidecar = record.probe.c2paSidecar;
  const started = performance.now();
  const stage = record.stages["metadata:provenance"]!;
  const problems = stage.method ? [stage.method.replace(/^left out: /, "")] : [];
  const methods: string[] = [];
  let pulled = 0;
  let requests = 0;
  if (tail) {
    try {
      if (record.probe.mime === "image/jpeg") {
        const from = Math.min(held?.byteLength ?? 0, tail.length);
        let rest: Uint8Array = new Uint8Array(0);
        if (from < tail.length) {
          requests += 1;
          rest = await readTail(record, config, { offset: from, length: tail.length - from });
          pulled += rest.byteLength;
        }
        jpegHead = new Uint8Array(from + rest.byteLength);
        if (held && from > 0) jpegHead.set(held.subarray(0, from), 0);
        jpegHead.set(rest, from);
        const read = await readImageTags("image/jpeg", jpegHead);
        problems.push(...read.problems);
        const declared = read.tags ? declarationsOfImageTags(read.tags) : {};
        writeDeclared(record, declared.capture, declared.rights);
        if (declared.digitalSourceType) record.results.provenance = withIptc(record.results.provenance, declared.digitalSourceType);
        methods.push(`jpeg metadata: one read of ${rest.byteLength} bytes at ${from}`);
      } else {
        requests += 1;
        const bytes = await readTail(record, config, tail);
        pulled += bytes.byteLength;
        const declared = readMp4UserData(bytes);
        writeDeclared(record, declared.capture, declared.rights);
        methods.push(`moov tail: one read of ${tail.length} bytes at ${tail.offset}`);
      }
    } catch (err) {
      problems.push(`mp4 user data: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (sidecar) {
    requests += 1;
    const read = await readSidecarStore(record, config, sidecar);
    pulled += read.bytes;
    if (read.problem) problems.push(read.problem);
    record.results.provenance = withC2pa(record.results.provenance, read.c2pa);
    methods.push("c2pa sidecar");
  }
  finishStage(record, "metadata:provenance", { state: "done", durationMs: performance.now() - started, engine: "edge" });
  const done = record.stages["metadata:provenance"]!;
  done.requests = requests;
  done.bytesPulled = pulled;
  done.method = problems.length > 0 ? leftOut(problems) : methods.join("; ");
  return jpegHead;
}

/** What the later read declares completes what the head gave. */
function writeDeclared(record: ResourceRecord, declaredCapture: Capture | undefined, declaredRights: Rights | undefined): void {
  const capture = mergeCapture(record.results.capture, declaredCapture);
  const rights = declaredRights ?? record.results.rights;
  if (capture) record.results.capture = capture;
  if (rights) record.results.rights = rights;
}

/** An IPTC digital source type read late: the manifest's declaration still comes first. */
function withIptc(current: Provenance | undefined, iptcSourceType: string): Provenance {
  const c2pa = current?.c2pa ?? { present: false };
  return { c2pa, ...aiDeclaration(c2pa.activeManifest?.digitalSourceType, iptcSourceType) };
}

/**
 * The sidecar store through the checked fetch path (SSRF rules, deadline, the inspection's origin budget), at most
 * `maxC2paSidecarBytes`; what C2PA calls `manifest.inaccessible` when it cannot be had.
 */
async function readSidecarStore(record: ResourceRecord, config: Config, url: string): Promise<{ c2pa: C2pa; bytes: number; problem?: string }> {
  const inaccessible = (why: string) => ({ c2pa: { present: false, manifestUrl: url, failures: ["manifest.inaccessible"] }, bytes: 0, problem: `c2pa sidecar: ${why}` });
  let bytes: Uint8Array;
  try {
    const policy = fetchPolicy(config, budgetAfter(record.transfer));
    const { response, redirects } = await safeFetch(url, {}, policy);
    addTransfer(record, { requests: 1, redirects });
    if (response.status !== 200) {
      await response.body?.cancel();
      return inaccessible(`the server answered ${response.status}`);
    }
    bytes = await readCapped(response, maxC2paSidecarBytes, policy.deadline);
    addTransfer(record, { bytes: bytes.byteLength });
  } catch (err) {
    return inaccessible(err instanceof ApiError ? err.publicMessage : err instanceof Error ? err.message : String(err));
  }
  try {
    return { c2pa: await readSidecar(url, bytes, config.C2PA_TRUST_ANCHORS), bytes: bytes.byteLength };
  } catch (err) {
    return { c2pa: { present: true, manifestUrl: url, validation: "invalid" }, bytes: bytes.byteLength, problem: `c2pa sidecar: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The provenance with the sidecar's C2PA facts; an IPTC declaration of AI already found is kept over them. */
function withC2pa(current: Provenance | undefined, c2pa: C2pa): Provenance {
  const fromManifest = aiDeclaration(c2pa.activeManifest?.digitalSourceType, undefined);
  const keep = current?.aiGenerated === true || fromManifest.aiGenerated === null;
  const ai = keep && current ? { aiGenerated: current.aiGenerated, ...(current.aiBasis ? { aiBasis: current.aiBasis } : {}) } : fromManifest;
  return { c2pa, ...ai };
}

/** The planned range, in one request through the checked fetch path; anything but that exact range is refused. */
async function readTail(record: ResourceRecord, config: Config, tail: { offset: number; length: number }): Promise<Uint8Array> {
  const policy = fetchPolicy(config, budgetAfter(record.transfer));
  const last = tail.offset + tail.length - 1;
  const { response, redirects } = await safeFetch(record.probe.finalUrl, { headers: { range: `bytes=${tail.offset}-${last}` } }, policy);
  addTransfer(record, { requests: 1, redirects });
  const range = parseContentRange(response.headers.get("content-range"));
  const size = record.probe.sizeBytes;
  if (response.status !== 206 || range?.start !== tail.offset || (size !== undefined && range.size !== undefined && range.size !== size)) {
    await response.body?.cancel();
    throw new Error(`the origin answered ${response.status} without the range asked for`);
  }
  const bytes = await readHead(response, tail.length, policy.deadline);
  addTransfer(record, { bytes: bytes.byteLength });
  return bytes;
}

/** The tail's declarations win (metadata keys over the movie header's creation time); each part kept otherwise. */
function mergeCapture(head: Capture | undefined, tail: Capture | undefined): Capture | undefined {
  if (!head) return tail;
  if (!tail) return head;
  return { ...head, ...tail };
}
