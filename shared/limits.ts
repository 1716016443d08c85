/**
 * Limits the Worker and the media runner must agree on, defined once. A file the Worker's probe accepts must
 * also be accepted by every runner stage, so both sides default to these values.
 */

/** Largest remote file accepted (announced size and streamed bytes): 50 MiB. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

/** Longest side of generated thumbnails (320 px by default); smaller images are never upscaled. */
export const THUMBNAIL_MAX_PX = 320;

/**
 * Origin requests one inspection may make, the Worker and the media runner together: every hop counts (a
 * redirect is a request), DNS lookups and webhook deliveries do not. A hostile playlist naming thousands of
 * variants costs at most this many requests; the largest legitimate inspection in the test suite uses far
 * fewer (see docs in the budget modules: worker/fetch/origin-budget.ts, media-runner/src/fetch/job-budget.ts).
 */
export const inspectionOriginRequestBudget = 128;

/**
 * Bytes one inspection may pull from origins, the Worker and the media runner together: room for the edge and
 * the runner each to read the largest accepted file once.
 */
export const inspectionOriginByteBudget = 2 * MAX_SOURCE_BYTES;

/** What is left of an inspection's origin budget (or all of it). */
export interface OriginBudgetAmounts {
  requests: number;
  bytes: number;
}

export const fullInspectionBudget: Readonly<OriginBudgetAmounts> = {
  requests: inspectionOriginRequestBudget,
  bytes: inspectionOriginByteBudget,
};

/** The reason given when a budget is spent, the same words on both sides (a stage's failure reason). */
export function originBudgetSpentMessage(kind: keyof OriginBudgetAmounts): string {
  return kind === "requests"
    ? `the inspection's origin request budget is spent (inspectionOriginRequestBudget: ${inspectionOriginRequestBudget} requests per inspection, Worker and runner together)`
    : `the inspection's origin byte budget is spent (inspectionOriginByteBudget: ${inspectionOriginByteBudget / 1024 / 1024} MiB per inspection, Worker and runner together)`;
}

/**
 * Engine time one inspection may spend, all its runner jobs together (a retry gets what earlier jobs left):
 * wall-clock seconds of every engine process (ffprobe, ffmpeg, heif-convert) summed, so two engines running
 * at once count twice. The largest legitimate inspection here (the full profile of a 4K video with a
 * 100-tile storyboard, or an hour of stereo audio's waveform) takes well under this on an idle machine.
 */
export const inspectionEngineSecondsBudget = 40;

/** The reason given when the engine-time budget is spent (a stage's failure reason, or the job's error). */
export function engineBudgetSpentMessage(): string {
  return `the inspection's engine time budget is spent (inspectionEngineSecondsBudget: ${inspectionEngineSecondsBudget} engine-seconds per inspection, all runner jobs together)`;
}

/** A storyboard's most tiles, and its sprite's columns (the schema and the runner's plan both read these). */
export const storyboardMaxTiles = 100;
export const storyboardColumns = 10;

/**
 * MP4 box walks (shared/media/mp4-box-reader.ts), the same at the edge and in the runner: children walked in
 * one box (real files have a few dozen), how deep boxes nest (the deepest real path, moov > trak > mdia > minf >
 * stbl > stsd > encv > sinf > schi > tenc, is 10), and top-level boxes walked to find the moov (ftyp, free,
 * mdat, moov, ...: a handful).
 */
export const mp4MaxChildBoxes = 4096;
export const mp4MaxBoxDepth = 16;
export const mp4MaxTopLevelBoxes = 64;
