/**
 * Limits the Worker and the media runner must agree on, defined once. A file the Worker's probe accepts must
 * also be accepted by every runner stage, so both sides default to these values.
 */

/** Largest remote file accepted (announced size and streamed bytes): 50 MiB. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

/** Longest side of generated thumbnails (SPEC default 320 px); smaller images are never upscaled. */
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

/** A storyboard's most tiles, and its sprite's columns (the schema and the runner's plan both read these). */
export const storyboardMaxTiles = 100;
export const storyboardColumns = 10;
