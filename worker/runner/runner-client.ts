import type { RunnerConfig } from "../config/runner-config.ts";
import { sendToRunners } from "./runner-pool.ts";
import {
  RunnerErrorBody, RunnerResponse, runnerProcessPath, type RunnerRequestInput, type RunnerResponse as RunnerResult,
} from "../../shared/shapes/runner.ts";

import { RunnerError } from "./runner-error.ts";

export { RunnerError };

const permanentCodes = new Set([
  "INVALID_PAYLOAD", "SSRF_BLOCKED", "RESOURCE_NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA", "CORRUPT_MEDIA", "IMAGE_TOO_LARGE",
]);

/**
 * Calls a media runner (runner-pool.ts picks which, by `routingKey`: the resource key): at RUNNER_URL(S) when
 * set (local dev, tests, self-hosting), otherwise through the Cloudflare Container binding. The runner is
 * operator infrastructure, not user input, so this is the one call besides DNS that does not go through the
 * SSRF-checked fetcher; the runner checks the media URL itself.
 */
export async function callRunner(env: Env, config: RunnerConfig, request: RunnerRequestInput, routingKey: string, requestId?: string): Promise<RunnerResult> {
  const init = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${config.RUNNER_TOKEN}`,
      // The inspection that started the work: the runner's log lines for this job carry it.
      ...(requestId ? { "x-request-id": requestId } : {}),
    },
    body: JSON.stringify(request),
    signal: AbortSignal.timeout(config.RUNNER_TIMEOUT_MS),
  } satisfies RequestInit;
  let response: Response;
  try {
    response = await sendToRunners(env, config, routingKey, runnerProcessPath, init);
  } catch (err) {
    throw new RunnerError("RUNNER_UNREACHABLE", `media runner unreachable: ${String(err)}`, false);
  }
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const parsed = RunnerErrorBody.safeParse(body);
    const code = parsed.success ? parsed.data.error.code : `HTTP_${response.status}`;
    const message = parsed.success ? parsed.data.error.message : `media runner answered ${response.status}`;
    throw new RunnerError(code, message, permanentCodes.has(code), parsed.success ? parsed.data.error.usage : undefined);
  }
  const parsed = RunnerResponse.safeParse(body);
  if (!parsed.success) throw new RunnerError("INVALID_RUNNER_RESPONSE", "media runner sent an invalid response", false);
  return parsed.data;
}
