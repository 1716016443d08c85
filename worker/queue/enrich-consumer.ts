import { getConfig } from "../config.ts";
import { EnrichMessage } from "../../shared/schemas/queue.ts";
import { callRunner, RunnerError } from "../runner/runner-client.ts";
import { runnerStagesOf } from "../../shared/stages/index.ts";
import { thumbnailObjectKey, thumbnailPath } from "../enrich/thumbnail-store.ts";
import type { RunnerOutcome } from "../resource/runner-results.ts";
import { base64ToBytes } from "../encoding/base64.ts";

/**
 * Queue consumer for heavy stages: calls the media runner, stores the thumbnail in R2, writes the result into
 * the resource's Durable Object. Transient runner errors are retried with exponential backoff; after
 * RUNNER_MAX_ATTEMPTS (or a permanent error) the stages end as failed, so nothing stays pending forever.
 * Messages on the dead-letter queue only mark their stages failed.
 */
export async function handleEnrichBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const config = getConfig(env);
  const deadLetter = batch.queue.endsWith("-dlq");
  for (const message of batch.messages) {
    const parsed = EnrichMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error("dropping malformed enrich message", parsed.error.message);
      message.ack();
      continue;
    }
    const job = parsed.data;
    const stub = env.RESOURCE.get(env.RESOURCE.idFromName(job.resourceName));
    const stages = await stub.stillPending(job.stages);
    if (stages.length === 0) {
      message.ack(); // Already done (a duplicate delivery): processing it again changes nothing.
      continue;
    }
    if (deadLetter) {
      await stub.applyRunner({ stages, error: "the media runner kept failing; gave up" });
      message.ack();
      continue;
    }
    try {
      await stub.markRunnerStarted(stages);
      const result = await callRunner(env, config, {
        url: job.url,
        category: job.category,
        stages: runnerStagesOf(stages),
        thumbnailMaxPx: config.THUMBNAIL_MAX_PX,
        ...(job.stream ? { stream: job.stream } : {}),
      });
      const { thumbnail, ...rest } = result;
      const outcome: RunnerOutcome = { stages, result: rest };
      if (thumbnail) {
        const key = thumbnailObjectKey(job.key, thumbnail.width, thumbnail.height);
        await env.THUMBNAILS.put(key, base64ToBytes(thumbnail.base64), { httpMetadata: { contentType: thumbnail.contentType } });
        outcome.result = { ...rest, thumbnail: { url: thumbnailPath(key), dimensions: `${thumbnail.width}x${thumbnail.height}` } };
      }
      await stub.applyRunner(outcome);
      message.ack();
    } catch (err) {
      const error = err instanceof RunnerError ? err : new RunnerError("CONSUMER_ERROR", String(err), false);
      if (error.permanent || message.attempts >= config.RUNNER_MAX_ATTEMPTS) {
        await stub.applyRunner({ stages, error: `${error.code}: ${error.message}` });
        message.ack();
      } else {
        await stub.noteRunnerRetry(stages, `${error.code}: ${error.message}`);
        message.retry({ delaySeconds: config.RUNNER_RETRY_BASE_SECONDS * 2 ** (message.attempts - 1) });
      }
    }
  }
}
