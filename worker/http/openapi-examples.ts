import type { ErrorBody, ErrorCode } from "../../shared/schemas/error.ts";
import type { EmbedResponse, InspectResponse } from "../../shared/schemas/inspect.ts";
import type { JobResource } from "../../shared/schemas/job.ts";
import { maxRequestBodyBytes } from "./json-body.ts";

// Curated examples for /openapi.json, one per status and case, each consistent with itself (a `partial`
// answer has pending stages and a completion below 1) and checked against its zod schema in the tests.

const jobId = "job_5f0c2a9e7d41b3c6a8e9f0d1c2b3a4958677e6d5c4b3a29180f7e6d5c4b3a291_0123456789abcdef0123456789abcdef";
const thumb = "/api/v1/thumbnails/b5e3c76f0e2d4a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b-5f0c2a9e41d7b386-320x180.webp";

const videoIdentity = { url: "https://media.example/clip.mp4", finalUrl: "https://media.example/clip.mp4", mime: "video/mp4" };
const videoMetadata = {
  filename: "clip.mp4",
  size: { bytes: 934845, formatted: "935 kB" },
  video: {
    duration: { seconds: 5, formatted: "0:05" },
    fps: 25,
    bitrate: { bps: 1495752, formatted: "1.5 Mbps" },
    width: 640,
    height: 360,
    codec: "h264",
  },
};
const videoPlayback = (poster?: string) => ({
  strategy: "native" as const,
  component: "video" as const,
  streamable: true,
  downloadable: true,
  html:
    `<video src="https://media.example/clip.mp4" controls preload="metadata" playsinline allowfullscreen` +
    `${poster ? ` poster="${poster}"` : ""}></video>`,
});
const allStages = ["semantic", "mediaFormat", "metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"] as const;

const fast: InspectResponse = {
  success: true,
  responseSource: "fresh",
  cached: false,
  processing: {
    status: "partial",
    completion: 0.5,
    enrichmentsPending: true,
    completedStages: ["semantic", "mediaFormat", "metadata:image"],
    pendingStages: ["preview:thumbnail", "preview:blurhash", "preview:palette"],
  },
  data: {
    identity: { url: "https://media.example/photo.jpg", finalUrl: "https://media.example/photo.jpg", mime: "image/jpeg" },
    semantic: { kind: "direct-media", semanticType: "image" },
    playback: { strategy: "native", component: "img", streamable: true, downloadable: true },
    metadata: {
      filename: "photo.jpg",
      size: { bytes: 98231, formatted: "98.2 kB" },
      image: { colorSpace: "srgb", hasAlpha: false, width: 1280, height: 720 },
    },
  },
  projection: { profile: "fast", hiddenFields: ["preview"] },
};

const standardComplete: InspectResponse = {
  success: true,
  responseSource: "cache",
  cached: true,
  processing: { status: "complete", completion: 1, enrichmentsPending: false, completedStages: [...allStages], pendingStages: [] },
  data: {
    identity: videoIdentity,
    semantic: { kind: "direct-media", semanticType: "video" },
    playback: videoPlayback(`https://inspect.example${thumb}`),
    metadata: videoMetadata,
    preview: {
      thumbnail: { url: thumb, dimensions: "320x180" },
      placeholder: { type: "blurhash", value: "LZJ*|[]]oF@DtlSbSznAXRR*OXR*" },
      palette: { dominant: "#1f4e8c", colors: [{ hex: "#1f4e8c", share: 0.6214 }, { hex: "#e8e2d4", share: 0.2871 }, { hex: "#c0392b", share: 0.0915 }] },
      dominantColor: "#1f4e8c",
    },
  },
  enrichmentSources: Object.fromEntries(allStages.map((s) => [s, "fresh"])),
  projection: { profile: "standard", hiddenFields: [] },
};

const full: InspectResponse = {
  ...standardComplete,
  data: { ...standardComplete.data, diagnostics: { timings: { mediaFormat: 14, semantic: 1, preview: 176, total: 1470 } } },
  projection: { profile: "full", hiddenFields: [] },
};

const accepted: InspectResponse = {
  success: true,
  responseSource: "fresh",
  cached: false,
  processing: {
    status: "partial",
    completion: 0.5,
    enrichmentsPending: true,
    completedStages: ["semantic", "mediaFormat", "metadata:video"],
    pendingStages: ["preview:thumbnail", "preview:blurhash", "preview:palette"],
  },
  data: {
    identity: videoIdentity,
    semantic: { kind: "direct-media", semanticType: "video" },
    playback: videoPlayback(),
    metadata: videoMetadata,
    preview: { thumbnail: null, placeholder: null, palette: null, dominantColor: null },
  },
  projection: { profile: "standard", hiddenFields: [] },
  job: { id: jobId, status: "processing" },
  message:
    "The initial inspection is complete; heavy enrichments continue in the background. Poll GET /api/v1/job/{id} or wait for the webhook.",
};

const embed: EmbedResponse = {
  success: true,
  profile: "embed",
  data: {
    embedType: "embedded-video",
    mime: "text/html",
    provider: "youtube",
    renderability: { native: false, iframe: { supported: "verified", confidence: 0.98 }, embeddable: { status: "verified" } },
    verification: { providerVerified: true, registryVerified: true, networkVerified: true, method: "registry" },
    render: {
      strategy: "iframe",
      safeEmbed: true,
      renderConfidence: { level: "verified", score: 0.98 },
      tag: "iframe",
      attributes: { src: "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", allowfullscreen: true },
    },
  },
};

export const inspectExamples = {
  200: {
    fast: { summary: "profile=fast on an image: previews hidden, stages may be pending", value: fast },
    standard: { summary: "profile=standard, complete (here from cache)", value: standardComplete },
    full: { summary: "profile=full: every stage done, diagnostics included", value: full },
    embed: { summary: "profile=embed on a provider URL: render instructions", value: embed },
  },
  202: { standard: { summary: "profile=standard on a video: previews still running as a job", value: accepted } },
};

export const jobExamples = {
  running: {
    summary: "Still running",
    value: { success: true, job: { id: jobId, status: "active", progress: 50, createdAt: "2026-04-26T10:00:00.000Z" } } satisfies JobResource,
  },
  completed: {
    summary: "Completed: data is the standard-profile result",
    value: {
      success: true,
      job: { id: jobId, status: "completed", progress: 100, createdAt: "2026-04-26T10:00:00.000Z", completedAt: "2026-04-26T10:00:01.470Z" },
      data: { ...standardComplete, responseSource: "cache" },
    } satisfies JobResource,
  },
};

const error = (code: ErrorCode, message: string): ErrorBody => ({ status: "error", error: { code, message } });

/** Error examples by status: every code an operation can answer with at that status. */
export const errorExamples = {
  invalidUrl: error("INVALID_URL", "url must use http: or https: (got ftp:)."),
  invalidPayload: error("INVALID_PAYLOAD", "url is required"),
  invalidJson: error("INVALID_PAYLOAD", "The request body must be valid JSON: { \"url\": \"https://...\" }."),
  invalidParameter: error("INVALID_PARAMETER", "profile must be one of: fast, standard, full, embed"),
  ssrfBlocked: error("SSRF_BLOCKED", "The target resolves to an address this service does not fetch (private, local or metadata)."),
  resourceNotFound: error("RESOURCE_NOT_FOUND", "The remote server answered 404 Not Found."),
  jobNotFound: error("JOB_NOT_FOUND", "No job with id \"job_123\" (unknown, expired or malformed)."),
  thumbnailNotFound: error("NOT_FOUND", "No such thumbnail."),
  storyboardNotFound: error("NOT_FOUND", "No such storyboard."),
  methodNotAllowed: error("METHOD_NOT_ALLOWED", "PUT is not allowed here; use GET, HEAD, POST."),
  timeout: error("UPSTREAM_TIMEOUT", "The remote server did not answer within 10000 ms."),
  remoteTooLarge: error("PAYLOAD_TOO_LARGE", "The remote file exceeds the 50 MB limit."),
  bodyTooLarge: error("PAYLOAD_TOO_LARGE", `The request body exceeds ${maxRequestBodyBytes} bytes; send only { "url": "...", "webhookUrl"?: "..." }.`),
  unsupportedMediaType: error("UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON with the header Content-Type: application/json (got text/plain)."),
  rateLimited: error("RATE_LIMITED", "Too many inspections from this client: at most 60 per 60 s."),
  idempotencyKeyInUse: error("IDEMPOTENCY_KEY_IN_USE", "A request with this Idempotency-Key is still being processed; retry the same request after Retry-After seconds to get its answer."),
  internal: error("INTERNAL_ERROR", "Internal error. The request was not completed."),
  badGateway: error("BAD_GATEWAY", "The remote server answered 503."),
} satisfies Record<string, ErrorBody>;
