import { z } from "zod";
import { commaList, int } from "./setting.ts";

/** `RUNNER_URLS` as a list of base URLs. */
export const runnerUrlList = commaList;

/** Settings of `runner/` (the media runner client and pool): where the runners are and how they are called. */
export const RunnerConfigSchema = z.object({
  /** Media runner base URL (local dev, tests, self-hosting). Unset: the Cloudflare Container binding is used. */
  RUNNER_URL: z.string().optional(),
  /**
   * Several self-hosted runners, comma-separated base URLs (RUNNER_URL joins the list when both are set): jobs
   * spread over them by resource key and fail over to the next on 503 or when one is unreachable.
   */
  RUNNER_URLS: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      const bad = runnerUrlList(v).filter((u) => !/^https?:$/.test(URL.canParse(u) ? new URL(u).protocol : ""));
      if (bad.length) ctx.addIssue({ code: "custom", message: `not an http(s) URL: ${bad.join(", ")}` });
    }),
  /** Containers jobs spread over on Cloudflare; keep equal to `max_instances` of wrangler.toml's [[containers]]. Default 4. */
  RUNNER_INSTANCES: z.coerce.number().int().min(1).max(64).default(4),
  /** A runner that failed to answer is skipped this long, then health-checked before it gets jobs again. Default 10 s. */
  RUNNER_RETRY_AFTER_MS: int(10_000),
  /** Bearer token the runner expects. */
  RUNNER_TOKEN: z.string().default(""),
  /** Deadline for one runner call (download + ffmpeg + encode happen there). Default 60 s. */
  RUNNER_TIMEOUT_MS: int(60_000),
});
export type RunnerConfig = z.infer<typeof RunnerConfigSchema>;
