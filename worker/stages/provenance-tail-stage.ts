import type { Config } from "../config/config.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { Capture } from "../../shared/shapes/provenance.ts";
import { parseContentRange } from "../../shared/bytes/content-range.ts";
import { budgetAfter, fetchPolicy, readHead, safeFetch } from "../fetch/index.ts";
import { addTransfer } from "../record/transfer.ts";
import { finishStage } from "../record/stage-state.ts";
import { readMp4UserData } from "../probe/mp4-user-data.ts";
import { leftOut } from "./provenance-stage.ts";

/**
 * The later part of metadata:provenance for an MP4/MOV whose user data lies past the bytes the first inspection
 * read (a moov after the mdat, walked sparsely): one Range read of what follows the moov's tracks
 * (`probe.metadataTail`, a few KiB, capped), never the file. Runs after the first answer, so `fast` keeps its
 * round trips; `full` waits for it. What the tail declares completes what the head gave (the C2PA facts, the
 * movie header's creation time); a failed read leaves the capture and rights out with the reason and ends the
 * stage done, as a malformed tag does inline.
 */
export function provenanceTailPending(record: ResourceRecord): boolean {
  return record.probe.metadataTail !== undefined && record.stages["metadata:provenance"]?.state === "pending";
}

export async function runProvenanceTailStage(record: ResourceRecord, config: Config): Promise<void> {
  const tail = record.probe.metadataTail;
  if (!tail || !provenanceTailPending(record)) return;
  const started = performance.now();
  const stage = record.stages["metadata:provenance"]!;
  const problems = stage.method ? [stage.method.replace(/^left out: /, "")] : [];
  let pulled = 0;
  try {
    const bytes = await readTail(record, config, tail);
    pulled = bytes.byteLength;
    const declared = readMp4UserData(bytes);
    const capture = mergeCapture(record.results.capture, declared.capture);
    const rights = declared.rights ?? record.results.rights;
    if (capture) record.results.capture = capture;
    if (rights) record.results.rights = rights;
  } catch (err) {
    problems.push(`mp4 user data: ${err instanceof Error ? err.message : String(err)}`);
  }
  finishStage(record, "metadata:provenance", { state: "done", durationMs: performance.now() - started, engine: "edge" });
  const done = record.stages["metadata:provenance"]!;
  done.requests = 1;
  done.bytesPulled = pulled;
  done.method = problems.length > 0 ? leftOut(problems) : `moov tail: one read of ${tail.length} bytes at ${tail.offset}`;
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
