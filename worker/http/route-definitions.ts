import { createRoute, z } from "@hono/zod-openapi";
import { ErrorBody, ProblemDetails, problemTypePath } from "../../shared/schemas/error.ts";
import { BatchBody, EmbedResponse, InspectBody, InspectByQuery, InspectQuery, InspectResponse, maxBatchUrls } from "../../shared/schemas/inspect.ts";
import { JobResource } from "../../shared/schemas/job.ts";
import { OembedDocument, OembedQuery, SharePageQuery } from "../../shared/schemas/oembed-document.ts";
import { WebhookEvent } from "../../shared/schemas/webhook.ts";
import { AudioWaveform } from "../../shared/shapes/media-data.ts";
import { maxShareIdLength } from "../../shared/format/share-id.ts";
import { errorExamples as e, inspectExamples, jobExamples } from "./openapi-examples.ts";
import { maxRequestBodyBytes } from "./json-body.ts";
import { maxRequestIdLength } from "./request-log.ts";

type Example = { summary?: string; value: unknown };

const errorResponse = (description: string, examples: Record<string, Example>) => ({
  description,
  headers: { "X-Request-Id": requestIdHeader },
  content: {
    "application/json": { schema: ErrorBody, examples },
    // RFC 9457, for callers sending Accept: application/problem+json.
    "application/problem+json": { schema: ProblemDetails },
  },
});
const one = (summary: string, value: unknown) => ({ summary, value });

const requestIdHeader = {
  description: `The caller's X-Request-Id when it is at most ${maxRequestIdLength} characters of [A-Za-z0-9_=-], else a generated UUID. Present on every response and in the server's log line.`,
  schema: { type: "string" as const },
};

const methodNotAllowed = (allowed: string) =>
  errorResponse(`METHOD_NOT_ALLOWED: another method on this path (the Allow header lists ${allowed})`, {
    methodNotAllowed: one("Wrong method", e.methodNotAllowed),
  });
const internal = errorResponse("INTERNAL_ERROR: unexpected failure (no internals are disclosed)", { internal: one("Internal error", e.internal) });

const inspectErrors = {
  400: errorResponse("INVALID_URL, INVALID_PAYLOAD or INVALID_PARAMETER: the message says what to fix", {
    invalidUrl: one("INVALID_URL: not an http(s) URL", e.invalidUrl),
    invalidPayload: one("INVALID_PAYLOAD: a required field is missing", e.invalidPayload),
    invalidJson: one("INVALID_PAYLOAD: the body is not JSON", e.invalidJson),
    invalidParameter: one("INVALID_PARAMETER: a bad query parameter", e.invalidParameter),
  }),
  403: errorResponse("SSRF_BLOCKED: the target (or a redirect hop, or the webhookUrl) resolves to a denied address", {
    ssrfBlocked: one("SSRF_BLOCKED", e.ssrfBlocked),
  }),
  404: errorResponse("RESOURCE_NOT_FOUND: the remote server answered 404", { resourceNotFound: one("RESOURCE_NOT_FOUND", e.resourceNotFound) }),
  405: methodNotAllowed("GET, HEAD, POST"),
  408: errorResponse("UPSTREAM_TIMEOUT: the remote exchange passed the 10 s deadline", { timeout: one("UPSTREAM_TIMEOUT", e.timeout) }),
  413: errorResponse(
    `PAYLOAD_TOO_LARGE: the remote file exceeds 50 MB (declared or streamed), or this request's body exceeds ${maxRequestBodyBytes} bytes (checked before parsing)`,
    { remoteTooLarge: one("The remote file is too large", e.remoteTooLarge), bodyTooLarge: one("The request body is too large", e.bodyTooLarge) },
  ),
  415: errorResponse("UNSUPPORTED_MEDIA_TYPE: the body was sent without Content-Type: application/json", {
    unsupportedMediaType: one("UNSUPPORTED_MEDIA_TYPE", e.unsupportedMediaType),
  }),
  429: {
    ...errorResponse("RATE_LIMITED: this client passed its per-minute inspection limit (INSPECT_RATE_LIMIT); retry after Retry-After seconds", {
      rateLimited: one("RATE_LIMITED", e.rateLimited),
    }),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "Seconds until the client's window resets", schema: { type: "integer" as const } },
      RateLimit: { description: "IETF draft RateLimit fields: remaining requests and reset time", schema: { type: "string" as const } },
      "RateLimit-Policy": { description: "The limit and its window, e.g. `60;w=60`", schema: { type: "string" as const } },
    },
  },
  409: {
    ...errorResponse(
      "IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still being processed (as Stripe answers concurrent use of a key). " +
      "Nothing was started for this request; retry it after Retry-After seconds to get the first request's answer.",
      { idempotencyKeyInUse: one("IDEMPOTENCY_KEY_IN_USE", e.idempotencyKeyInUse) },
    ),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "Seconds to wait before retrying the same request", schema: { type: "integer" as const } },
    },
  },
  422: errorResponse("IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used within 24 h with a different request", {
    idempotencyKeyReused: one("IDEMPOTENCY_KEY_REUSED", { status: "error", error: { code: "IDEMPOTENCY_KEY_REUSED", message: "This Idempotency-Key was used with a different request within 24 hours; use a new key for a new request." } }),
  }),
  500: internal,
  502: {
    ...errorResponse(
      "BAD_GATEWAY: the remote server refused or failed; error.reason says why (bot-challenge, login-required, consent-wall, geo-blocked, " +
      "upstream-rate-limited, upstream-error, dns, tls) and error.upstreamStatus what it answered. RFC 9457 problem types: " +
      `<service>${problemTypePath}<reason>, each a page.`,
      {
        badGateway: one("BAD_GATEWAY", e.badGateway),
        botChallenge: one("A bot-protection challenge", { status: "error", error: { code: "BAD_GATEWAY", message: "The remote server answered 403 with a bot-protection challenge page; it serves this URL only to browsers that pass the challenge.", reason: "bot-challenge", upstreamStatus: 403 } }),
        rateLimitedUpstream: one("The origin rate-limited us", { status: "error", error: { code: "BAD_GATEWAY", message: "The remote server answered 429 Too Many Requests; it asks to retry after 120 s.", reason: "upstream-rate-limited", upstreamStatus: 429 } }),
      },
    ),
    headers: {
      "X-Request-Id": requestIdHeader,
      "Retry-After": { description: "reason upstream-rate-limited: the origin's own Retry-After, in seconds (capped at one day)", schema: { type: "integer" as const } },
    },
  },
} as const;

const timingHeaders = {
  "X-Request-Id": requestIdHeader,
  ETag: { description: "Strong validator of this answer (complete answers; GET with If-None-Match gets 304)", schema: { type: "string" as const } },
  "Cache-Control": { description: "Complete: public, max-age=<the record's whole life>, stale-while-revalidate=60, with Age = how much of it is used (RFC 9111 4.2.3: a cache keeps it max-age minus Age); partial and 202: no-store", schema: { type: "string" as const } },
  "Cache-Status": {
    description: "RFC 9211, naming media-inspect: hit; ttl=N | fwd=miss[; stored|collapsed] | fwd=stale; fwd-status=<origin status> (maxAge revalidation: 304 kept the record)",
    schema: { type: "string" as const },
  },
  Age: { description: "Seconds since the origin last gave or confirmed the record (the part of max-age used)", schema: { type: "integer" as const } },
  "Server-Timing": {
    description: "This request's total time and the resource's stage timings (ms), e.g. `total;dur=12, stage-mediaFormat;dur=14`",
    schema: { type: "string" as const },
  },
};

/** The inspect answers both forms share. */
const inspectAnswers = {
  200: {
    description: "Inspection result (complete, cached, or fast). profile=embed answers the embed shape.",
    headers: timingHeaders,
    content: { "application/json": { schema: z.union([InspectResponse, EmbedResponse]), examples: inspectExamples[200] } },
  },
  202: {
    description:
      "standard profile on heavy media: the initial inspection is done; enrichments continue as `job`. Also `full` when " +
      "the stages did not finish within FULL_WAIT_TIMEOUT_MS (default 25 s): the same answer, so the caller can poll the job.",
    headers: {
      ...timingHeaders,
      Location: { description: "Absolute URL of the job to poll (GET)", schema: { type: "string" as const, format: "uri" } },
      "Retry-After": { description: "Seconds to wait before polling the job", schema: { type: "integer" as const } },
    },
    content: { "application/json": { schema: InspectResponse, examples: inspectExamples[202] } },
  },
};
/** A GET has no body: no 413 for its size, no 415 for its type, no Idempotency-Key (409, 422). */
const { 409: _keyInUse, 413: _bodyTooLarge, 415: _bodyType, 422: _idempotency, ...inspectByQueryErrors } = inspectErrors;

/**
 * Request headers are described in the operation's text, not declared as `request.headers`: declared headers
 * would become required arguments of every typed client call (hono/client).
 */
const idempotencyText =
  " Header Idempotency-Key (1 to 255 printable ASCII characters, per client): the same key with the same request within 24 h " +
  "answers the first answer again (Idempotent-Replayed: true) and registers no second job or webhook; with a different request, 422 IDEMPOTENCY_KEY_REUSED; " +
  "while the first request with the key is still being processed, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After (nothing is started; retry to get the first answer). " +
  "Only finished answers are kept: a 408, 429 or 5xx releases the key, so a retry after Retry-After is a new request. A caller the " +
  "service cannot identify (CLIENT_IP_SOURCE; SECURITY.md) has no key slots: its Idempotency-Key is ignored." +
  " Header Accept: application/problem+json: errors as RFC 9457 problem details.";

export const inspectRoute = createRoute({
  method: "post",
  path: "/api/v1/inspect",
  operationId: "inspectUrl",
  tags: ["Inspection"],
  summary: "Inspect a media URL",
  description:
    "Probes a public http(s) URL with Range requests (never a full download) and answers what it is and how to show it. " +
    "`profile` picks depth: fast (no generated previews), standard (200 when complete, else 202 with a job), full (waits " +
    "for every stage, includes diagnostics), embed (render instructions only). A stage that fails ends as done with no " +
    `result: its fields are omitted and it is listed in processing.failedStages. The body is JSON of at most ${maxRequestBodyBytes} bytes.` +
    idempotencyText,
  request: {
    query: InspectQuery,
    body: { required: true, description: "Content-Type: application/json", content: { "application/json": { schema: InspectBody } } },
  },
  responses: { ...inspectAnswers, ...inspectErrors },
});

export const inspectByQueryRoute = createRoute({
  method: "get",
  path: "/api/v1/inspect",
  operationId: "inspectUrlByQuery",
  tags: ["Inspection"],
  summary: "Inspect a media URL given in the query",
  description:
    "The same inspection and answers as POST, with the URL as the `url` query parameter (percent-encoded). For browsers: " +
    "a GET without custom headers is a CORS simple request, so it costs no preflight round trip; and for links. " +
    "There is no webhookUrl here (a GET registers nothing); POST keeps the target URL out of access logs along the way. " +
    "Header If-None-Match with the ETag of an earlier complete answer: 304 while it is current.",
  request: {
    query: InspectByQuery,
  },
  responses: {
    ...inspectAnswers,
    304: { description: "Not modified: the If-None-Match ETag names the current answer", headers: { ETag: { schema: { type: "string" as const } } } },
    ...inspectByQueryErrors,
  },
});

export const BatchResponse = z.object({
  success: z.literal(true),
  results: z.array(z.union([InspectResponse, EmbedResponse, ErrorBody]))
    .meta({ description: "One answer per URL, in the order sent: the inspect envelope, or the error envelope (status: error) for that URL" }),
}).meta({ id: "BatchResponse" });

export const batchRoute = createRoute({
  method: "post",
  path: "/api/v1/inspect/batch",
  operationId: "inspectBatch",
  tags: ["Inspection"],
  summary: `Inspect up to ${maxBatchUrls} URLs in one request`,
  description:
    `Each URL is inspected exactly as POST /api/v1/inspect would (same query parameters, same caching, same errors), ` +
    `concurrently within per-origin limits, and answers in its own slot of \`results\`, in order; one URL failing never ` +
    "fails the batch. Each URL counts against the client's rate limit: URLs over it answer RATE_LIMITED in their slot " +
    "(the whole request is 429 only when none fits). A webhookUrl registers one job per URL." + idempotencyText,
  request: {
    query: InspectQuery,
    body: { required: true, description: "Content-Type: application/json", content: { "application/json": { schema: BatchBody } } },
  },
  responses: {
    200: {
      description: "One result per URL, in order",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: BatchResponse, examples: {
        mixed: one("Two URLs: one inspected, one whose origin answered 404", {
          success: true, results: [inspectExamples[200].fast.value, e.resourceNotFound],
        }),
      } } },
    },
    400: inspectErrors[400],
    413: inspectErrors[413],
    415: inspectErrors[415],
    422: inspectErrors[422],
    429: inspectErrors[429],
    500: internal,
  },
});

export const jobRoute = createRoute({
  method: "get",
  path: "/api/v1/job/{id}",
  operationId: "getJob",
  tags: ["Jobs"],
  summary: "Get an enrichment job",
  request: {
    params: z.object({
      id: z.string().meta({ description: "Job id from a 202 inspect answer (also its Location header)", example: jobExamples.running.value.job.id }),
    }),
  },
  responses: {
    200: {
      description: "The job; `data` holds the inspection result (standard profile) once completed",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: JobResource, examples: jobExamples } },
    },
    404: errorResponse("JOB_NOT_FOUND: unknown, expired or malformed job id", { jobNotFound: one("JOB_NOT_FOUND", e.jobNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

export const thumbnailRoute = createRoute({
  method: "get",
  path: "/api/v1/thumbnails/{file}",
  operationId: "getThumbnail",
  tags: ["Thumbnails"],
  summary: "A generated thumbnail (WebP)",
  request: {
    params: z.object({
      file: z.string().meta({
        description: "File name from preview.thumbnail.url (or preview.storyboard.url): `<resource key>-<revision>-[storyboard-]<W>x<H>.webp`. " +
          "The revision (16 hex digits) changes when the file at the origin does, so a changed file's previews have new URLs.",
      }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "WebP image, cacheable for a year (the name carries the file's revision: a changed file's thumbnail has another URL)",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "image/webp": { schema: z.string().meta({ format: "binary" }) } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such thumbnail (also an older revision of a file that changed: its previews are deleted)", { thumbnailNotFound: one("NOT_FOUND", e.thumbnailNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

/** The inspect errors a GET of a media URL can meet, with the oEmbed meaning of 404 (no document for this URL). */
const { 404: _remote404, 405: _inspect405, ...sharingErrors } = inspectByQueryErrors;
const notMedia = errorResponse(
  "NOT_FOUND: the URL is not video, audio or an image (a web page, for instance); RESOURCE_NOT_FOUND: the remote server answered 404",
  { notMedia: one("NOT_FOUND", { status: "error", error: { code: "NOT_FOUND", message: "No oEmbed document for this URL: it is a web page, not video, audio or an image." } }), resourceNotFound: one("RESOURCE_NOT_FOUND", e.resourceNotFound) },
);

export const oembedRoute = createRoute({
  method: "get",
  path: "/oembed",
  operationId: "getOembed",
  tags: ["Sharing"],
  summary: "oEmbed document of a media URL",
  description:
    "oEmbed 1.0 (oembed.com) for any video, audio or image URL: `video` with the service's player `html` for video and audio, " +
    "`photo` with `url` for images. Runs the standard inspection (counted by the per-client inspection limit); when previews are " +
    "still being made the document has no thumbnail yet and a short cache_age.",
  request: { query: OembedQuery },
  responses: {
    200: {
      description: "The oEmbed document",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: OembedDocument, examples: {
        video: one("A video file: the service's player", {
          version: "1.0", type: "video", title: "clip.mp4", provider_name: "Media URL Inspection API", provider_url: "https://media.example/",
          cache_age: 86_340, width: 640, height: 360,
          html: '<video src="https://cdn.example/clip.mp4" controls preload="metadata" playsinline width="640" height="360"></video>',
          thumbnail_url: "https://media.example/api/v1/thumbnails/9f2c-320x180.webp", thumbnail_width: 320, thumbnail_height: 180,
        }),
        photo: one("An image", {
          version: "1.0", type: "photo", title: "photo.jpg", provider_name: "Media URL Inspection API", provider_url: "https://media.example/",
          cache_age: 86_340, url: "https://cdn.example/photo.jpg", width: 1280, height: 720,
        }),
      } } },
    },
    ...sharingErrors,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
    501: errorResponse("NOT_IMPLEMENTED: a format other than json (oEmbed 2.3.3: 501 Not Implemented)", {
      xml: one("format=xml", { status: "error", error: { code: "NOT_IMPLEMENTED", message: "format=xml is not implemented: this provider answers format=json only." } }),
    }),
  },
});

export const sharePageRoute = createRoute({
  method: "get",
  path: "/v",
  operationId: "getSharePage",
  tags: ["Sharing"],
  summary: "Share page of a media URL",
  description:
    "A small HTML page that plays the media with the service's player, with the oEmbed discovery link, OpenGraph and Twitter " +
    "player card tags, so a plain .mp4, .mp3 or .m3u8 link unfurls through the service. Strict CSP: no script, no style.",
  request: { query: SharePageQuery },
  responses: {
    200: { description: "The page", headers: { "X-Request-Id": requestIdHeader }, content: { "text/html": { schema: z.string() } } },
    ...sharingErrors,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});

export const storyboardRoute = createRoute({
  method: "get",
  path: "/api/v1/storyboards/{file}",
  operationId: "getStoryboardTrack",
  tags: ["Thumbnails"],
  summary: "A storyboard's WebVTT thumbnails track",
  request: {
    params: z.object({
      file: z.string().meta({ description: "File name from preview.storyboard.vtt: `<resource key>-<revision>-<W>x<H>.vtt` (the revision as for thumbnails)" }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "WebVTT: one cue per tile, each `interval` long, whose text is the sprite's URL with a #xywh=x,y,w,h fragment",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "text/vtt": { schema: z.string() } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such storyboard", { storyboardNotFound: one("NOT_FOUND", e.storyboardNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

const shareId = z.object({
  id: z.string().max(maxShareIdLength).meta({
    description: "The inspected URL as unpadded base64url (identity.shareUrl and the oEmbed document's share_url name it); no lookup, no file extension",
  }),
});
const badShareId = errorResponse("INVALID_URL: the id is not a base64url http(s) URL", { invalidUrl: one("INVALID_URL", e.invalidUrl) });

export const shareByIdRoute = createRoute({
  method: "get",
  path: "/v/{id}",
  operationId: "getSharePageById",
  tags: ["Sharing"],
  summary: "Share page of a media URL, by id",
  description: "The share page of GET /v at an address with no query and no file extension, which unfurlers fetch " +
    "(some refuse a link whose query ends in .mp4 or .mp3 without fetching it). The page's og:url is this address.",
  request: { params: shareId },
  responses: {
    200: { description: "The page", headers: { "X-Request-Id": requestIdHeader }, content: { "text/html": { schema: z.string() } } },
    ...sharingErrors,
    400: badShareId,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});

export const shareCardRoute = createRoute({
  method: "get",
  path: "/v/{id}/card.png",
  operationId: "getShareCard",
  tags: ["Sharing"],
  summary: "The share page's generated card image",
  description: "A 1200x630 PNG for media with no picture of its own (audio: the share page's og:image): a colour of the URL's own " +
    "and the waveform's peaks once `expand=waveform` made them.",
  request: { params: shareId },
  responses: {
    200: { description: "The card", headers: { "X-Request-Id": requestIdHeader }, content: { "image/png": { schema: z.string().meta({ format: "binary" }) } } },
    ...sharingErrors,
    400: badShareId,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});

export const waveformDataRoute = createRoute({
  method: "get",
  path: "/api/v1/waveforms/{file}",
  operationId: "getWaveformData",
  tags: ["Thumbnails"],
  summary: "A waveform as BBC audiowaveform JSON",
  description: "The buckets of preview.waveform in the format peaks.js and wavesurfer.js load (version 2: signed 16-bit min/max " +
    "per channel at the file's own sample rate). peaks.js: `dataUri: { json: <url> }`, with zoomLevels at or above samples_per_pixel.",
  request: {
    params: z.object({
      file: z.string().meta({ description: "File name from preview.waveform.url: `<resource key>-<revision>-<channels>x<length>.json`" }),
    }),
    query: z.object({
      bits: z.enum(["8", "16"]).optional().meta({ description: "8 (the default: peaks.js reads only 8-bit data) or 16 (finer: wavesurfer.js and audiowaveform's own tools)" }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "audiowaveform JSON",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: AudioWaveform, examples: {
        mono: one("10 s of mono audio at 44.1 kHz, 100 points", {
          version: 2, channels: 1, sample_rate: 44_100, samples_per_pixel: 4410, bits: 8, length: 100,
          data: Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? -31 : 31)),
        }),
      } } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such waveform", { waveformNotFound: one("NOT_FOUND", { status: "error", error: { code: "NOT_FOUND", message: "No such waveform." } }) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

/** Documented under `webhooks` (OpenAPI 3.1): what a `webhookUrl` receives. */
export const completionWebhook = {
  method: "post" as const,
  path: "inspection.completed",
  operationId: "inspectionCompleted",
  tags: ["Webhooks"],
  summary: "Inspection completed",
  description:
    "Sent once per inspection that named a webhookUrl, when every stage is done. Signed per Standard Webhooks: " +
    "`webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature` = `v1,` + base64(HMAC-SHA256(secret, id.timestamp.body)). " +
    "Retried with exponential backoff (1 s, 2 s, 4 s, ... up to WEBHOOK_MAX_ATTEMPTS) until the receiver answers 2xx.",
  request: {
    headers: z.object({
      "webhook-id": z.string(),
      "webhook-timestamp": z.string(),
      "webhook-signature": z.string(),
    }),
    body: { content: { "application/json": { schema: WebhookEvent } } },
  },
  responses: { 200: { description: "Any 2xx acknowledges the delivery; anything else is retried" } },
};
