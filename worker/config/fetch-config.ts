import { z } from "zod";
import { MAX_SOURCE_BYTES } from "../../shared/limits.ts";
import { int } from "./setting.ts";

/** Settings of `fetch/` (SSRF-checked outbound fetch): where and how the Worker may connect, and how much it reads. */
export const FetchConfigSchema = z.object({
  /**
   * Deployment kind: "production" (wrangler.toml), "development" (`npm start`), "test". Default: production.
   * The fetch policy is what reads it (OUTBOUND_TRANSPORT below).
   */
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
});
export type FetchConfig = z.infer<typeof FetchConfigSchema>;
