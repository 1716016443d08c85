import { z } from "zod";
import { StageName } from "./stages.ts";
import { RequestId } from "./request-id.ts";
import { StreamPreviewPlan } from "../shapes/streaming-page.ts";
import { RunnerBudget, RunnerClient } from "../shapes/runner.ts";

/** A heavy-stage job on the runner work queue: which resource, which stages, handled by the media runner. */
export const RunnerWorkMessage = z.object({
  version: z.literal(1),
  /** Durable Object name of the resource (its normalised URL). */
  resourceName: z.string().min(1),
  /** Resource key (SHA-256 of the normalised URL), used for R2 thumbnail keys. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** The final URL of the media after redirects. */
  url: z.string().url(),
  category: z.enum(["video", "audio", "image"]),
  stages: z.array(StageName).min(1),
  /** Runner calls made for these stages before this message (a direct call that failed, a lost message) plus one. */
  attempt: z.number().int().positive().optional(),
  /** Seconds, from the container header read at the edge (the runner starts its frame at once). */
  durationHint: z.number().nonnegative().optional(),
  /** HLS/DASH: where the runner reads the previews (see RunnerRequest.stream). */
  stream: StreamPreviewPlan.optional(),
  /** The X-Request-Id of the inspection that started the work (sent to the runner; in every log line about it). */
  requestId: RequestId.optional(),
  /** The caller whose inspection started the work (RunnerRequest.client). */
  client: RunnerClient.optional(),
  /** What the inspection has left of its origin budget (RunnerRequest.budget); absent: the whole budget. */
  budget: RunnerBudget.optional(),
  /** The record's preview revision (16 hex digits): part of every R2 key the previews are stored under. */
  revision: z.string().regex(/^[0-9a-f]{16}$/).optional(),
});
export type RunnerWorkMessage = z.infer<typeof RunnerWorkMessage>;
