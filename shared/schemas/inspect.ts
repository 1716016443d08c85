import { z } from "zod";
import { InspectData, namespaceNames, subFieldNames } from "./inspect-data.ts";
import { StageError, StageName } from "./stages.ts";

/** Brief job form, as carried by the inspect 202 answer. Here, not in job.ts: job.ts embeds InspectResponse. */
export const JobBrief = z.object({
  id: z.string(),
  status: z.enum(["processing", "complete"]),
}).meta({ id: "JobBrief" });
export type JobBrief = z.infer<typeof JobBrief>;

export const profiles = ["fast", "standard", "full", "embed"] as const;
export const Profile = z.enum(profiles);
export type Profile = z.infer<typeof Profile>;
/** storyboard and waveform register opt-in stages (shared/stages: optIn) on the resource's record. */
export const expandNames = ["embedHtml", "rawHeaders", "html", "storyboard", "waveform"] as const;
export type ExpandName = (typeof expandNames)[number];

/** Comma-separated list parameter; unknown names are rejected with the allowed values in the message. */
function csvOf<T extends string>(allowed: readonly T[], param: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === "") return undefined;
      const items = [...new Set(raw.split(",").map((s) => s.trim()).filter(Boolean))];
      const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `unknown ${param} value(s) ${unknown.map((u) => `"${u}"`).join(", ")}; allowed: ${allowed.join(", ")}`,
        });
        return z.NEVER;
      }
      return items as T[];
    });
}

export const InspectQuery = z.object({
  profile: z
    .enum(profiles, { error: () => `profile must be one of: ${profiles.join(", ")}` })
    .default("standard")
    .meta({ description: "Projection and enrichment depth" }),
  fields: csvOf([...namespaceNames, ...subFieldNames], "fields")
    .meta({ description: `Comma-separated namespaces: ${namespaceNames.join(", ")}; or one part of a namespace: ${subFieldNames.join(", ")}` }),
  expand: csvOf(expandNames, "expand").meta({ description: "Comma-separated: embedHtml, rawHeaders (needs debug=true), html (embed profile), storyboard (video: preview.storyboard, a sprite and WebVTT track), waveform (audio: preview.waveform and metadata.audio.loudness). storyboard and waveform, once asked for, stay part of the resource's record for every later caller and profile" }),
  debug: z
    .enum(["true", "false"], { error: () => "debug must be true or false" })
    .default("false")
    .transform((v) => v === "true")
    .meta({ description: "Debug information; required for expand=rawHeaders" }),
  maxAge: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      // At most 9 digits: a whole number of seconds, never a float or an exponent.
      if (raw.length === 0 || raw.length > 9 || ![...raw].every((ch) => ch >= "0" && ch <= "9")) {
        ctx.addIssue({ code: "custom", message: "maxAge must be a whole number of seconds (0 = check the origin now)" });
        return z.NEVER;
      }
      return Number(raw);
    })
    .meta({
      description:
        "Freshness wanted, in seconds: a record older than this is revalidated with the origin (a conditional request with " +
        "its ETag/Last-Modified: 304 keeps the record, a change re-inspects it). Ages are whole seconds, as HTTP's Age: 0 = a record " +
        "the origin gave or confirmed within the last second. Callers asking at once share one revalidation; a record without " +
        "validators is re-inspected at most once per maxAge window (per second for 0); profile=fast and embed start no " +
        "background work on a re-inspected record. Default: any unexpired record.",
    }),
});
export type InspectQuery = z.infer<typeof InspectQuery>;

export const maxUrlLength = 2048;

export const InspectBody = z
  .object({
    url: z.string({ error: (iss) => (iss.input === undefined ? "url is required" : "url must be a string") })
      .meta({
        description: `Public http(s) URL, at most ${maxUrlLength} characters`,
        example: "https://example.com/video.mp4",
        format: "uri",
        maxLength: maxUrlLength,
      }),
    webhookUrl: z.string({ error: "webhookUrl must be a string" }).optional()
      .meta({ description: "Receives one signed completion event (Standard Webhooks)", format: "uri", maxLength: maxUrlLength }),
  })
  .strict().meta({ id: "InspectRequest" });
export type InspectBody = z.infer<typeof InspectBody>;

/**
 * GET /api/v1/inspect: the same inspection with the URL in the query string, for browsers (a GET without custom
 * headers is a CORS simple request: no preflight round trip) and for links. No webhookUrl: a GET registers no
 * deliveries. The POST form keeps the target URL out of intermediaries' access logs.
 */
export const InspectByQuery = InspectQuery.extend({ url: InspectBody.shape.url });
export type InspectByQuery = z.infer<typeof InspectByQuery>;

/** URLs one batch request may carry. */
export const maxBatchUrls = 20;

export const BatchBody = z
  .object({
    urls: z.array(InspectBody.shape.url, { error: "urls must be an array of URL strings" })
      .min(1, { error: "urls needs at least one URL" })
      .max(maxBatchUrls, { error: `urls takes at most ${maxBatchUrls} URLs; split larger lists` })
      .meta({ description: `1 to ${maxBatchUrls} public http(s) URLs, inspected concurrently; results come back in this order` }),
    webhookUrl: InspectBody.shape.webhookUrl,
  })
  .strict().meta({ id: "BatchRequest" });
export type BatchBody = z.infer<typeof BatchBody>;

export const Processing = z.object({
  status: z.enum(["partial", "complete"]),
  completion: z.number().min(0).max(1),
  enrichmentsPending: z.boolean(),
  completedStages: z.array(StageName),
  pendingStages: z.array(StageName),
  failedStages: z.array(StageName).optional()
    .meta({ description: "Stages that ended without a result (counted as completed; their fields are omitted). Present only when non-empty." }),
}).meta({ id: "Processing" });
export type Processing = z.infer<typeof Processing>;

export const Projection = z.object({
  profile: Profile,
  hiddenFields: z.array(z.string()).meta({ description: "Namespaces intentionally omitted by the profile" }),
}).meta({ id: "Projection" });

export const InspectResponse = z.object({
  success: z.literal(true),
  responseSource: z.enum(["fresh", "cache", "inflight"]),
  cached: z.boolean(),
  processing: Processing,
  data: InspectData,
  enrichmentSources: z.record(z.string(), z.enum(["fresh", "cache"])).optional(),
  projection: Projection,
  job: JobBrief.optional(),
  message: z.string().optional(),
  debug: z.object({
    stageErrors: z.array(StageError).meta({ description: "Why each stage in processing.failedStages failed" }),
  }).optional().meta({ description: "With debug=true, when a stage failed" }),
}).meta({ id: "InspectResponse" });
export type InspectResponse = z.infer<typeof InspectResponse>;

export const EmbedResponse = z.object({
  success: z.literal(true),
  profile: z.literal("embed"),
  data: z.object({
    embedType: z.string(),
    mime: z.string(),
    provider: z.string().optional(),
    renderability: z.object({
      native: z.boolean(),
      iframe: z.object({ supported: z.enum(["verified", "likely", "unsupported", "blocked"]), confidence: z.number() }),
      embeddable: z.object({
        status: z.enum(["verified", "likely", "not-embeddable", "unknown"]),
        reason: z.string().optional(),
      }),
      framing: z.object({
        xFrameOptions: z.string().optional(),
        frameAncestors: z.string().optional(),
        allowed: z.boolean(),
      }).optional().meta({ description: "Direct media only: whether the origin forbids being framed" }),
    }),
    verification: z.object({
      providerVerified: z.boolean(),
      registryVerified: z.boolean(),
      networkVerified: z.boolean(),
      method: z.enum(["registry", "oembed-discovery", "network", "none"]),
    }),
    render: z.object({
      strategy: z.enum(["iframe", "native", "link"]),
      safeEmbed: z.boolean(),
      renderConfidence: z.object({ level: z.enum(["verified", "likely", "low"]), score: z.number() }),
      tag: z.enum(["iframe", "video", "audio", "img", "a"]),
      attributes: z.record(z.string(), z.union([z.string(), z.boolean(), z.number()])),
    }),
    providerCapabilities: z.record(z.string(), z.unknown()).optional(),
    html: z.string().optional(),
  }),
}).meta({ id: "EmbedResponse" });
export type EmbedResponse = z.infer<typeof EmbedResponse>;
