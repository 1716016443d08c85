import { getConfig, type Config } from "../config/config.ts";
import { RunnerWorkMessage } from "../../shared/schemas/queue.ts";
import { performRunnerWork } from "../dispatch/runner-work.ts";
import { asRunnerError, decideRetry } from "../dispatch/retry-policy.ts";
import { errorField, logEvent } from "../log/event-log.ts";
import { resourceByName } from "../object/resource-rpc.ts";

/**
 * Queue consumer for heavy stages, the durable retry path of runner work (the resource's object calls the
 * runner directly when a caller waits; see worker/dispatch): calls the media runner, stores the thumbnail in
 * R2, writes the result into the resource's Durable Object. A batch's messages run concurrently, up to
 * CONSUMER_CONCURRENCY, so one slow origin does not hold the others back. Transient runner errors are retried
 * with exponential backoff; an origin timeout, a permanent error or the spent attempt budget end the stages as
 * failed, so nothing stays pending forever. Messages on the dead-letter queue only mark their stages failed.
 */
export async function handleRunnerWorkBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const config = getConfig(env);
  const deadLetter = batch.queue.endsWith("-dlq");
  const waiting = [...batch.messages];
  const worker = async () => {
    for (let message = waiting.shift(); message; message = waiting.shift()) {
      await handleMessage(message, env, config, deadLetter);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(config.CONSUMER_CONCURRENCY, waiting.length)) }, worker));
}

async function handleMessage(message: Message<unknown>, env: Env, config: Config, deadLetter: boolean): Promise<void> {
  const parsed = RunnerWorkMessage.safeParse(message.body);
  if (!parsed.success) {
    logEvent("error", "dropping malformed runner work message", { error: parsed.error.message });
    message.ack();
    return;
  }
  const job = parsed.data;
  const stub = resourceByName(env, job.resourceName);
  try {
    const stages = await stub.stillPending(job.stages);
    if (stages.length === 0) {
      message.ack(); // Already done (a duplicate delivery): processing it again changes nothing.
      return;
    }
    if (deadLetter) {
      await stub.applyRunner({ stages, error: "the media runner kept failing; gave up" });
      message.ack();
      return;
    }
    // Calls made before this message (a failed direct call, a lost message) count against the budget.
    const attempt = (job.attempt ?? 1) + message.attempts - 1;
    try {
      // The budget the inspection has left now: earlier calls' spending (failed ones too) is charged.
      const budget = await stub.markRunnerStarted(stages);
      await stub.applyRunner(await performRunnerWork(env, config, { ...job, stages, ...(budget ? { budget } : {}) }));
      message.ack();
    } catch (err) {
      const decision = decideRetry(err, attempt, config);
      const usage = asRunnerError(err).usage;
      if (decision.kind === "fail") {
        await stub.applyRunner({ stages, error: decision.reason, ...(usage ? { usage } : {}) });
        message.ack();
      } else {
        await stub.noteRunnerRetry(stages, decision.reason, decision.delaySeconds, usage);
        message.retry({ delaySeconds: decision.delaySeconds });
      }
    }
  } catch (err) {
    // The object itself failed (e.g. restarting): the message comes back later; the object's watchdog also covers it.
    logEvent("error", "runner work message failed", {
      resource: job.key, stages: job.stages, ...(job.requestId ? { requestId: job.requestId } : {}), error: errorField(err),
    });
    message.retry({ delaySeconds: config.RUNNER_RETRY_BASE_SECONDS });
  }
}
