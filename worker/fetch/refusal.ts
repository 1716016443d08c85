/**
 * Why an origin refused: a failed answer, or a redirect away from what was asked, classified
 * into the reasons callers can act on. Every check is bounded and linear: a fixed set of substring searches
 * over at most `challengeSniffBytes` of body and a few header values, no regular expressions.
 */
import type { ErrorReason } from "../../shared/schemas/error.ts";
import { ApiError, errors } from "../errors/api-error.ts";
import type { Deadline } from "./deadline.ts";
import { readHead } from "./read-body.ts";

/** Body bytes of a refusal read to look for challenge markers: challenge pages carry them in their head. */
export const challengeSniffBytes = 8 * 1024;
/** An origin's Retry-After is passed on up to this (seconds); longer asks are capped, not trusted. */
export const maxRetryAfterSeconds = 24 * 60 * 60;
/** Retry-After values longer than this are not parsed (an HTTP-date is 29 characters). */
const maxRetryAfterLength = 64;

/** Statuses that challenge pages are served with. */
const challengeStatuses = new Set([403, 429, 503]);

/** Lower-case body markers of the challenge pages of the big CDNs and WAFs. */
const challengeBodyMarkers: readonly string[] = [
  // Cloudflare managed/JS challenge ("Just a moment...") and its older "Attention Required!" block page.
  "<title>just a moment...</title>", "/cdn-cgi/challenge-platform/", "_cf_chl_opt", "cf-chl-", "attention required! | cloudflare",
  // Akamai Bot Manager / edge deny page (its reference URL is entity-encoded in current pages).
  "errors.edgesuite.net", "errors&#46;edgesuite&#46;net", "akamai-bm-telemetry", "_abck",
  // DataDome.
  "captcha-delivery.com", "datadome",
  // PerimeterX / HUMAN.
  "_pxappid", "px-captcha", "perimeterx", "px-cloud.net",
  // AWS WAF challenge and CAPTCHA actions.
  "awswafintegration", "token.awswaf.com", "awswaf",
];

/** Header names (or name=value) that only a bot-protection layer sets on a refusal. */
function challengeHeader(headers: Headers): boolean {
  if (headers.get("cf-mitigated")?.toLowerCase() === "challenge") return true;
  const waf = headers.get("x-amzn-waf-action")?.toLowerCase();
  if (waf === "challenge" || waf === "captcha") return true;
  if (headers.has("x-datadome") || headers.has("x-datadome-cid") || headers.has("x-dd-b")) return true;
  if (headers.has("x-px-block") || headers.has("x-px-captcha")) return true;
  return false;
}

/** Akamai's deny page says "Access Denied" with a "Reference #" under an AkamaiGHost server header. */
function akamaiDeny(headers: Headers, body: string): boolean {
  return (headers.get("server") ?? "").toLowerCase().includes("akamaighost") && body.includes("access denied")
    && (body.includes("reference #") || body.includes("reference&#32;&#35;"));
}

export function isChallenge(status: number, headers: Headers, lowerBody: string): boolean {
  if (challengeHeader(headers)) return true;
  if (!challengeStatuses.has(status)) return false;
  return akamaiDeny(headers, lowerBody) || challengeBodyMarkers.some((marker) => lowerBody.includes(marker));
}

/** Retry-After as seconds from now (delta-seconds or an HTTP-date), capped; undefined when absent or invalid. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value || value.length > maxRetryAfterLength) return undefined;
  const trimmed = value.trim();
  let seconds: number;
  if (trimmed !== "" && [...trimmed].every((ch) => ch >= "0" && ch <= "9")) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(maxRetryAfterSeconds, Math.max(0, seconds));
}

/**
 * The error for an origin's failed answer (anything but 200/206/404), with the reason and the upstream status.
 * Reads at most `challengeSniffBytes` of the body (only for statuses challenges use) and cancels the rest.
 */
export async function refusalOf(response: Response, deadline: Deadline): Promise<ApiError> {
  const status = response.status;
  let lowerBody = "";
  if (challengeStatuses.has(status)) {
    const bytes = await readHead(response, challengeSniffBytes, deadline).catch(() => new Uint8Array(0));
    lowerBody = new TextDecoder("utf-8", { fatal: false }).decode(bytes).toLowerCase();
  } else {
    await response.body?.cancel().catch(() => {});
  }
  const upstreamStatus = status;
  if (isChallenge(status, response.headers, lowerBody)) {
    return errors.badGateway(
      `The remote server answered ${status} with a bot-protection challenge page; it serves this URL only to browsers that pass the challenge.`,
      undefined, { reason: "bot-challenge", upstreamStatus });
  }
  const simple: Partial<Record<number, [ErrorReason, string]>> = {
    401: ["login-required", "The remote server answered 401: this URL needs a signed-in user."],
    451: ["geo-blocked", "The remote server answered 451 Unavailable For Legal Reasons: the content is blocked where it was fetched from."],
  };
  const known = simple[status];
  if (known) return errors.badGateway(known[1], undefined, { reason: known[0], upstreamStatus });
  if (status === 429) {
    const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
    return errors.badGateway(
      `The remote server answered 429 Too Many Requests${retryAfter !== undefined ? `; it asks to retry after ${retryAfter} s` : ""}.`,
      undefined, { reason: "upstream-rate-limited", upstreamStatus, ...(retryAfter !== undefined ? { retryAfter } : {}) });
  }
  return errors.badGateway(`The remote server answered ${status}.`, undefined, { reason: "upstream-error", upstreamStatus });
}

/** Path segments (lower case) that name a sign-in page. */
const loginSegments = new Set(["login", "log-in", "log_in", "signin", "sign-in", "sign_in", "logon", "servicelogin", "authwall", "sso"]);
/** Path segments (lower case) that name a consent interstitial. */
const consentSegments = new Set(["consent", "cookie-consent", "cookieconsent", "collectconsent", "consent-management", "privacy-gateway", "gdpr"]);
/** Hosts' first labels that serve only consent interstitials (consent.google.com, consent.youtube.com, guce.yahoo.com). */
const consentHostLabels = new Set(["consent", "guce"]);

function segmentsOf(url: URL): string[] {
  return url.pathname.toLowerCase().split("/").filter(Boolean);
}

function kindOf(url: URL): "login" | "consent" | undefined {
  const segments = segmentsOf(url);
  if (consentHostLabels.has(url.hostname.toLowerCase().split(".")[0] ?? "") || segments.some((s) => consentSegments.has(s))) return "consent";
  if (segments.some((s) => loginSegments.has(s))) return "login";
  return undefined;
}

/**
 * A redirect from what was asked to a login page or a consent wall: the origin will not show this URL to an
 * anonymous visitor, so following it would describe the wrong page. A URL that is itself such a page is not.
 */
export function redirectRefusal(from: URL, to: URL, status: number): ApiError | undefined {
  const kind = kindOf(to);
  if (!kind || kindOf(from) === kind) return undefined;
  return kind === "login"
    ? errors.badGateway(`The remote server redirected (${status}) to a sign-in page: this URL needs a signed-in user.`, undefined,
      { reason: "login-required", upstreamStatus: status })
    : errors.badGateway(`The remote server redirected (${status}) to a consent page (${to.hostname}): it shows this URL only after cookie/consent approval.`,
      undefined, { reason: "consent-wall", upstreamStatus: status });
}
