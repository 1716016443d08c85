import { z } from "zod";
import { defaultMaxDecodePixels } from "./limits.ts";
import { MAX_SOURCE_BYTES, THUMBNAIL_MAX_PX } from "../../shared/limits.ts";
import { webhookSecretProblem } from "./webhook-secret.ts";
import { parseIpLiteral } from "../../shared/net/ip-literal.ts";

/** `CORS_ORIGINS` as a list (`*` stays a single entry). */
export function corsOriginList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}

/** `RUNNER_URLS` as a list of base URLs. */
export function runnerUrlList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}

/** True for a bare origin: scheme, host and optional port, nothing else (what browsers send in `Origin`). */
function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/**
 * All Worker settings, read once per request from the environment (wrangler vars, `npm start` env, or test
 * bindings) and validated here. Each field documents its default; a bad value fails loudly, naming the variable.
 */
const int = (def: number) => z.coerce.number().int().nonnegative().default(def);

export const ConfigSchema = z.object({
  /** Deployment kind: "production" (wrangler.toml), "development" (`npm start`), "test". Default: production. */
  ENVIRONMENT: z.string().default("production"),
  /**
   * How the Worker connects after the SSRF check: "pinned" (a socket to the checked address; default) or
   * "platform" (runtime fetch; honoured only when ENVIRONMENT=production, i.e. on Cloudflare, whose fetch cannot
   * reach private networks; see SECURITY.md).
   */
  OUTBOUND_TRANSPORT: z.enum(["pinned", "platform"]).default("pinned"),
  /** Test/dev only: comma-separated `IP`, `IP:PORT` or `CIDR` entries exempt from the SSRF deny-list. Default: empty. */
  SSRF_ALLOWLIST: z.string().default(""),
  /** DNS-over-HTTPS JSON resolver used for SSRF checks. Default: Cloudflare's public resolver. */
  DOH_RESOLVER_URL: z.url({ protocol: /^https?$/ }).default("https://cloudflare-dns.com/dns-query"),
  /** Deadline for one whole outbound exchange (DNS, redirects, body). Default 10 s. */
  FETCH_TIMEOUT_MS: int(10_000),
  /** Largest remote file accepted, checked on Content-Length and on streamed bytes. Default 50 MiB. */
  MAX_SOURCE_BYTES: int(MAX_SOURCE_BYTES),
  /** Redirect hops followed (each re-checked). Default 5. */
  MAX_REDIRECTS: int(5),
  /**
   * Bytes requested by the first Range probe. Default 16 KiB: it fits a TCP initial congestion window (10
   * segments), so the first answer costs one round trip; readers that need more ask for exactly that.
   */
  PROBE_HEAD_BYTES: int(16 * 1024),
  /**
   * First Range request for URLs named like front-loaded audio (.mp3, .flac, .wav, .ogg...; see
   * worker/probe/head-size.ts): their stream facts sit in the first KiBs. Default 4 KiB, never above
   * PROBE_HEAD_BYTES.
   */
  PROBE_FRONT_HEAD_BYTES: int(4 * 1024),
  /**
   * Bytes kept from an origin that ignores Range and streams the whole file (a 200): those bytes arrive anyway,
   * and nothing past them can be asked for. Default 64 KiB.
   */
  PROBE_STREAM_HEAD_BYTES: int(64 * 1024),
  /**
   * Smallest follow-up Range read after the head (a parser's targeted read): a parser's next few small reads
   * usually land in it. Default 4 KiB.
   */
  PROBE_READ_MIN_BYTES: int(4 * 1024),
  /** Largest `moov` box fetched from the tail of an MP4 to read it at the edge. Default 8 MiB. */
  MAX_TAIL_BYTES: int(8 * 1024 * 1024),
  /** How long a complete record is served from cache. Default 24 h. */
  RECORD_TTL_SECONDS: int(86_400),
  /** How long an origin error (404, 5xx, timeout) is remembered. Default 60 s. */
  ERROR_TTL_SECONDS: int(60),
  /** Longest side of generated thumbnails. Default 320 px. */
  THUMBNAIL_MAX_PX: int(THUMBNAIL_MAX_PX),
  /** Images up to this size are decoded at the edge; larger go to the media runner. Default 12 MiB. */
  MAX_EDGE_IMAGE_BYTES: int(12 * 1024 * 1024),
  /** Pixel bound checked from the header before decoding at the edge. Default ~7 MP: photon peaks near 12 bytes/pixel and the isolate has 128 MB. */
  MAX_DECODE_PIXELS: int(defaultMaxDecodePixels),
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
  /**
   * Secret for webhook signatures (Standard Webhooks: `whsec_` + base64 key of at least 24 bytes). Webhooks are
   * refused while unset; `npm start` generates one in local mode.
   */
  WEBHOOK_SECRET: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const problem = v === undefined ? undefined : webhookSecretProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .transform((v) => v ?? ""),
  /** Webhook delivery attempts before giving up. Default 8. */
  WEBHOOK_MAX_ATTEMPTS: int(8),
  /** First webhook retry delay; doubles each attempt (1 s, 2 s, 4 s, ...). Default 1 s. */
  WEBHOOK_RETRY_BASE_MS: int(1_000),
  /**
   * POST /api/v1/inspect per client (CLIENT_IP_SOURCE) and window; 0 disables. Default 60 per 60 s. On
   * Cloudflare the INSPECT_RATE_LIMITER binding enforces it: keep wrangler.toml's `simple` block equal.
   */
  INSPECT_RATE_LIMIT: int(60),
  /** Window of INSPECT_RATE_LIMIT in seconds (the Cloudflare binding accepts 10 or 60). Default 60. */
  INSPECT_RATE_PERIOD_SECONDS: int(60),
  /**
   * Where the caller's address comes from (rate limits, Idempotency-Key slots, the runner's per-caller share;
   * worker/http/client-identity.ts): `cloudflare` (CF-Connecting-IP; only behind Cloudflare's edge, which sets
   * it: wrangler.toml), `forwarded` (X-Forwarded-For through TRUSTED_PROXIES), `none` (no caller identified).
   * Default none: outside Cloudflare a client can send any CF-Connecting-IP.
   */
  CLIENT_IP_SOURCE: z.enum(["cloudflare", "forwarded", "none"]).default("none"),
  /** CLIENT_IP_SOURCE=forwarded: comma-separated addresses or CIDRs of the proxies in front of the Worker. Default empty. */
  TRUSTED_PROXIES: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      const bad = v.split(",").map((s) => s.trim()).filter(Boolean).filter((entry) => {
        const [address, bits, extra] = entry.split("/");
        const parsed = parseIpLiteral(address ?? "");
        if (extra !== undefined || !parsed) return true;
        const max = parsed.kind() === "ipv6" ? 128 : 32;
        return bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max);
      });
      if (bad.length) ctx.addIssue({ code: "custom", message: `not an address or CIDR: ${bad.join(", ")}` });
    }),
  /** Webhook POSTs per target host and window (more wait for the next window); 0 disables. Default 30 per 60 s. */
  WEBHOOK_HOST_RATE_LIMIT: int(30),
  /** Window of WEBHOOK_HOST_RATE_LIMIT in seconds (10 or 60 with the binding). Default 60. */
  WEBHOOK_HOST_RATE_PERIOD_SECONDS: int(60),
  /** How long finished jobs can be polled. Default 24 h. */
  JOB_TTL_SECONDS: int(86_400),
  /**
   * Origins allowed to call the API from a browser (CORS): `*` (default; the API takes no credentials) or a
   * comma-separated list of origins such as `https://app.example,https://cms.example`.
   */
  CORS_ORIGINS: z
    .string()
    .default("*")
    .superRefine((v, ctx) => {
      const bad = corsOriginList(v).filter((o) => o !== "*" && !isOrigin(o));
      if (bad.length) ctx.addIssue({ code: "custom", message: `not an origin (scheme://host[:port]): ${bad.join(", ")}` });
    }),
  /**
   * Browser origins allowed to call the MCP endpoint (/mcp): a request whose `Origin` is not the service's own
   * origin nor listed here is answered 403, so a page on another site cannot reach the server through a browser
   * (DNS rebinding). Requests without `Origin` (desktop and command-line MCP clients) are not affected. Default:
   * empty (same origin only); `*` allows any origin.
   */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      const bad = corsOriginList(v).filter((o) => o !== "*" && !isOrigin(o));
      if (bad.length) ctx.addIssue({ code: "custom", message: `not an origin (scheme://host[:port]): ${bad.join(", ")}` });
    }),
  /**
   * Public base URL of this service (`https://media.example`), used wherever it writes its own absolute URLs
   * (202 `Location`, the `poster` in `playback.html`). Unset: the origin of each request.
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Replaces the origin of every provider oEmbed endpoint (tests point it at a loopback fake). */
  OEMBED_BASE_URL: z.string().optional(),
  /**
   * The C2PA trust list: PEM certificates of the trust anchors a Content Credentials signer must chain to for
   * `validation: "trusted"`. Empty (default): signatures are checked, nobody is trusted. Production loads the
   * C2PA Trust List's PEM file (see README, Provenance) with `wrangler secret put C2PA_TRUST_ANCHORS < file.pem`.
   */
  C2PA_TRUST_ANCHORS: z.string().default(""),
});
export type Config = z.infer<typeof ConfigSchema>;

const cache = new WeakMap<object, Config>();

/** Parses the environment once per env object. Throws an Error naming each bad variable. */
export function getConfig(env: object): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const source: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = (env as Record<string, unknown>)[key];
    if (typeof value === "string" && value !== "") source[key] = value;
  }
  const parsed = ConfigSchema.safeParse(source);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${detail}`);
  }
  cache.set(env, parsed.data);
  return parsed.data;
}
