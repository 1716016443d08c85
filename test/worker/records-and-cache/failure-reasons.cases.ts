// Issue 25 item 3: failures that say why. Loopback origins play each refusal with the markers real CDNs and
// WAFs send; the envelope keeps SPEC 7's code and message and gains reason and upstreamStatus; an origin's
// Retry-After is passed on; Accept: application/problem+json gets RFC 9457.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inspect, origin } from "../../../testkit/worker/helpers.ts";

const nonce = () => `n=${crypto.randomUUID().slice(0, 8)}`;

describe("failures that say why", () => {
  const challenges = ["cloudflare", "cloudflare-body", "akamai", "datadome", "perimeterx", "awswaf"];
  it.each(challenges)("a %s challenge page is bot-challenge with the origin's status", async (name) => {
    const r = await inspect(`${origin}/play/${name}?${nonce()}`);
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "bot-challenge", upstreamStatus: name === "awswaf" ? 202 : name === "cloudflare-body" ? 503 : 403 });
    expect(r.body.error.message).toMatch(/challenge/);
  });

  it("a plain 403 without challenge markers is upstream-error, not bot-challenge", async () => {
    const r = await inspect(`${origin}/play/forbidden?${nonce()}`);
    expect(r.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "upstream-error", upstreamStatus: 403 });
  });

  it("a 302 to /login is login-required; so is a 401", async () => {
    const redirected = await inspect(`${origin}/play/login-redirect?${nonce()}`);
    expect(redirected.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "login-required", upstreamStatus: 302 });
    const unauthorized = await inspect(`${origin}/status/401?${nonce()}`);
    expect(unauthorized.body.error).toMatchObject({ reason: "login-required", upstreamStatus: 401 });
  });

  it("a redirect to a consent interstitial is consent-wall", async () => {
    const r = await inspect(`${origin}/play/consent-redirect?${nonce()}`);
    expect(r.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "consent-wall", upstreamStatus: 303 });
  });

  it("451 is geo-blocked; 500 is upstream-error; 404 keeps RESOURCE_NOT_FOUND with its status", async () => {
    expect((await inspect(`${origin}/status/451?${nonce()}`)).body.error).toMatchObject({ reason: "geo-blocked", upstreamStatus: 451 });
    expect((await inspect(`${origin}/status/500?${nonce()}`)).body.error).toMatchObject({ reason: "upstream-error", upstreamStatus: 500 });
    const missing = await inspect(`${origin}/status/404?${nonce()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "RESOURCE_NOT_FOUND", upstreamStatus: 404 });
  });

  it("429 upstream is upstream-rate-limited and its Retry-After becomes ours", async () => {
    const r = await inspect(`${origin}/play/rate-limited?${nonce()}`);
    expect(r.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "upstream-rate-limited", upstreamStatus: 429 });
    expect(r.headers.get("retry-after")).toBe("120");
  });

  it("a host that does not resolve is dns; a timeout is timeout; no upstreamStatus when the origin never answered", async () => {
    const dns = await inspect(`http://nx.test/${nonce()}`);
    expect(dns.body.error).toMatchObject({ code: "BAD_GATEWAY", reason: "dns" });
    expect(dns.body.error.upstreamStatus).toBeUndefined();
    const slow = await inspect(`${origin}/slow?ms=5000&${nonce()}`);
    expect(slow.status).toBe(408);
    expect(slow.body.error).toMatchObject({ code: "UPSTREAM_TIMEOUT", reason: "timeout" });
  });

  it("a declared-oversized file is too-large", async () => {
    const r = await inspect(`${origin}/huge?${nonce()}`);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", reason: "too-large" });
  });

  it("the default envelope is SPEC 7's: no extra fields where nothing is known", async () => {
    const r = await inspect("ftp://example.com/x");
    expect(r.body).toEqual({ status: "error", error: { code: "INVALID_URL", message: expect.any(String) } });
  });

  it("Accept: application/problem+json gets RFC 9457 with type, title, status, detail, instance, code and reason", async () => {
    const r = await inspect(`${origin}/play/cloudflare?${nonce()}`, "", { headers: { accept: "application/problem+json", "x-request-id": "req-problem-1" } });
    expect(r.status).toBe(502);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.body).toEqual({
      type: "http://service/problems/bot-challenge",
      title: expect.stringMatching(/challenge/),
      status: 502,
      detail: expect.stringMatching(/challenge/),
      instance: "urn:request:req-problem-1",
      code: "BAD_GATEWAY",
      reason: "bot-challenge",
      upstreamStatus: 403,
    });
    // The type URI resolves to what it names.
    const page = await SELF.fetch(r.body.type);
    expect(page.status).toBe(200);
    expect(((await page.json()) as { title: string }).title).toBe(r.body.title);
    // Errors without a reason are problems too, typed by their code.
    const invalid = await inspect("ftp://example.com/x", "", { headers: { accept: "application/problem+json" } });
    expect(invalid.body).toMatchObject({ type: "http://service/problems/invalid-url", status: 400, code: "INVALID_URL" });
    expect(invalid.body.reason).toBeUndefined();
  });
});
