import { z } from "zod";
import { int } from "./setting.ts";

/** How long results are kept and served: records (`record/`), remembered origin errors and job records (`jobs/`). */
export const RetentionConfigSchema = z.object({
  /** How long a complete record is served from cache. Default 24 h. */
  RECORD_TTL_SECONDS: int(86_400),
  /** How long an origin error (404, 5xx, timeout) is remembered. Default 60 s. */
  ERROR_TTL_SECONDS: int(60),
  /** How long finished jobs can be polled. Default 24 h. */
  JOB_TTL_SECONDS: int(86_400),
});
export type RetentionConfig = z.infer<typeof RetentionConfigSchema>;
