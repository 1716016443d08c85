import type { RunnerErrorCode, RunnerUsage } from "../../shared/shapes/runner.ts";

const statusByCode: Readonly<Record<RunnerErrorCode, number>> = {
  INVALID_PAYLOAD: 400,
  UNAUTHORIZED: 401,
  SSRF_BLOCKED: 403,
  RESOURCE_NOT_FOUND: 404,
  UPSTREAM_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA: 422,
  CORRUPT_MEDIA: 422,
  IMAGE_TOO_LARGE: 422,
  BAD_GATEWAY: 502,
  NOT_FOUND: 404,
  RUNNER_BUSY: 503,
  PROCESSING_TIMEOUT: 504,
  INTERNAL_ERROR: 500,
};

/**
 * The runner's one error type: a code with its HTTP status, a public message, and an internal detail
 * that is logged but never sent (it may hold engine output or addresses).
 */
export class RunnerError extends Error {
  readonly status: number;
  /** What the job had spent when it failed (set by processJob): the Worker charges it to the inspection. */
  usage?: RunnerUsage;
  constructor(
    readonly code: RunnerErrorCode,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "RunnerError";
    this.status = statusByCode[code];
  }
}

export function isRunnerError(error: unknown): error is RunnerError {
  return error instanceof RunnerError;
}
