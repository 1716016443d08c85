import type { Config } from "../config/config.ts";
import { ApiError, publicFields } from "../errors/api-error.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { nestedInspectionDone } from "../stages/page-media-stage.ts";
import { isComplete, registerOptIn } from "../record/stage-state.ts";
import { errorField, logEvent } from "../log/event-log.ts";
import type { AlarmClock } from "./alarm-clock.ts";
import type { JobDesk, OpenedJob } from "./job-desk.ts";
import type { CurrentRecord, RecordSource } from "./record-source.ts";
import type { InspectCall, InspectReply, PublicError } from "./resource-rpc.ts";
import type { StageWork } from "./stage-work.ts";

/** The resource object's rooms, as the steps of an inspection use them. */
export interface Rooms {
  source: RecordSource;
  work: StageWork;
  desk: JobDesk;
  alarm: AlarmClock;
  config(): Config;
}

/** One inspection under way: the call, the record as found (`first`) and as it stands now, the answer's parts. */
export interface Inspection extends CurrentRecord {
  readonly call: InspectCall;
  readonly first: ResourceRecord;
  /** Whether this caller starts background work (runner jobs, edge previews; revalidation.ts). */
  background: boolean;
  job?: OpenedJob;
}

export type InspectionStep = (inspection: Inspection, rooms: Rooms) => Promise<void> | void;

/** `expand` values register their opt-in stages (storyboard, waveform) on the record. */
const registerOptIns: InspectionStep = ({ call, first }, { source }) => {
  if (call.optIn && registerOptIn(first, call.optIn).length > 0) source.save(first);
};

/** Runner work starts first, so that it runs while the edge stages do. A waiting caller gets a direct call. */
const startRunnerWork: InspectionStep = async (inspection, { source, work, config }) => {
  const { call, first } = inspection;
  const via = call.profile === "fast" || call.profile === "embed" ? "queue" : config().RUNNER_DISPATCH;
  inspection.background = source.startsBackgroundWork(first, call.profile);
  const caller = { ...(call.requestId ? { requestId: call.requestId } : {}), ...(call.client ? { client: call.client } : {}) };
  if (inspection.background) await work.queueRunnerStages(source.record() ?? first, via, caller);
};

/** A page's named media, inspected before the page's answer. */
const inspectPageMedia: InspectionStep = ({ call, first }, { work }) => work.runPageMedia(first, call);

/** The edge image stages, for every profile but `fast`. */
const runEdgeStages: InspectionStep = async ({ call }, { work }) => {
  if (call.profile !== "fast") await work.runEdgeStages();
};

/** `fast` does not wait for the edge stages it started: the alarm runs them at once. */
const leaveEdgeToAlarm: InspectionStep = async (inspection, { source, work, alarm }) => {
  inspection.record = source.record() ?? inspection.first;
  if (inspection.call.profile === "fast" && inspection.background && work.edgePending(inspection.record)) await alarm.wakeBy(Date.now());
};

/** `full` waits for the record to complete, up to FULL_WAIT_TIMEOUT_MS; a nested call never for the page:media stage it does not run. */
const waitForFull: InspectionStep = async (inspection, { source, work, config }) => {
  const done = inspection.call.nested ? nestedInspectionDone : isComplete;
  if (inspection.call.profile === "full" && !done(inspection.record)) await work.waitForCompletion(config().FULL_WAIT_TIMEOUT_MS, done);
  inspection.record = source.record() ?? inspection.record;
};

/** A job for a webhook registration or an incomplete `standard`/`full` answer (job-desk.ts). */
const openJob: InspectionStep = async (inspection, { desk }) => {
  inspection.job = await desk.open(inspection.call, inspection.record);
};

/**
 * The steps of one inspection once its record is found, in order: the one place the order is written
 * (as imgproxy's mainPipeline lists its processing steps). A new step is one function and one line here.
 */
export const inspectionSteps: readonly InspectionStep[] = [
  registerOptIns,
  startRunnerWork,
  inspectPageMedia,
  runEdgeStages,
  leaveEdgeToAlarm,
  waitForFull,
  openJob,
];

/** Finds the record (stored, joined, revalidated or probed), runs the steps, answers; errors cross as values. */
export async function inspect(call: InspectCall, rooms: Rooms): Promise<InspectReply> {
  try {
    const found = await rooms.source.current(call);
    const inspection: Inspection = { ...found, call, first: found.record, background: false };
    for (const step of inspectionSteps) await step(inspection, rooms);
    const { record, responseSource, job, revalidation } = inspection;
    return { ok: true, record, responseSource, ...(job ? { job } : {}), ...(revalidation ? { revalidation } : {}) };
  } catch (err) {
    const error = publicError(err, call);
    const remembered = rooms.source.originError.current(Date.now());
    const same = remembered && remembered.status === error.status && remembered.code === error.code && remembered.message === error.message;
    return { ok: false, error, ...(same ? { rememberedUntil: remembered.expiresAt, repeated: rooms.source.originError.isRepeat(err) } : {}) };
  }
}

function publicError(err: unknown, call: InspectCall): PublicError {
  if (err instanceof ApiError) return publicFields(err);
  logEvent("error", "resource object failure", { resource: call.key, ...(call.requestId ? { requestId: call.requestId } : {}), error: errorField(err) });
  return { status: 500, code: "INTERNAL_ERROR", message: "The inspection failed unexpectedly." };
}
