import { z } from "zod";
import { int } from "./setting.ts";

/** Settings of `dispatch/` and the queue consumer: how runner work starts, is retried, watched and waited for. */
export const DispatchConfigSchema = z.object({
  /** Deliveries of a runner job before its stages end as failed (then the message goes to the dead-letter queue). Default 5. */
  RUNNER_MAX_ATTEMPTS: int(5),
  /** First retry delay after a runner error; doubles each attempt. Default 2 s. */
  RUNNER_RETRY_BASE_SECONDS: int(2),
  /** A queued stage not finished after this long is queued again (lost message). Default 10 min. */
  STAGE_REQUEUE_AFTER_MS: int(10 * 60_000),
  /** How runner work starts when a caller waits (`full`, `standard`): `direct` (the object calls the runner at once) or `queue`. Default direct. */
  RUNNER_DISPATCH: z.enum(["direct", "queue"]).default("direct"),
  /** While a direct runner call is under way the object's alarm checks it this often; after a Worker restart the call is re-dispatched within this bound. Default 2 s. */
  DISPATCH_WATCHDOG_MS: int(2_000),
  /** A queue message not picked up this long after its delay counts as lost and is re-dispatched. Default 15 s. */
  QUEUE_PICKUP_GRACE_MS: int(15_000),
  /** Messages of one queue batch handled at the same time. Default 4. */
  CONSUMER_CONCURRENCY: int(4),
  /** Longest time `profile=full` waits for background stages before answering 202 with the job. Default 25 s. */
  FULL_WAIT_TIMEOUT_MS: int(25_000),
});
export type DispatchConfig = z.infer<typeof DispatchConfigSchema>;
