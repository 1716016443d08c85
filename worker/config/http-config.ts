import { z } from "zod";
import { parseIpLiteral } from "../../shared/net/ip-literal.ts";
import { commaList } from "./setting.ts";

/** `CORS_ORIGINS` as a list (`*` stays a single entry). */
export const corsOriginList = commaList;

/** True for a bare origin: scheme, host and optional port, nothing else (what browsers send in `Origin`). */
function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** Settings of `http/` (routes, middleware, the MCP endpoint): who the caller is, which browsers may call, own URL. */
export const HttpConfigSchema = z.object({
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
});
export type HttpConfig = z.infer<typeof HttpConfigSchema>;
