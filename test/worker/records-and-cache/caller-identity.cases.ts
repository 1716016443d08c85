// Who the caller is, and what is kept under an Idempotency-Key: slots of two callers never meet (an IPv6
// address and a key joined with a colon used to), a caller the service cannot identify gets no slot, a request
// refused with 429 (single or batch) is not replayed to its retry, and CF-Connecting-IP is believed only where
// Cloudflare's edge sets it (CLIENT_IP_SOURCE).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { clientAddressOf } from "../../../worker/http/client-identity.ts";
import { idempotencySlot } from "../../../worker/service/idempotency-keys.ts";
import { firstSeen, runnerClients, sleep } from "../../../testkit/worker/jobs.ts";
import { media } from "../../../testkit/worker/helpers.ts";

const app = createApp();
type Settings = Record<string, string | undefined>;
const envWith = (settings: Settings) => ({ ...(env as object), ...settings }) as unknown as Env;

async function call(target: Env, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await app.request(`http://service${path}`, {
    method: init.method ?? "GET",
    headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  }, target);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** A prefix of the documentation range no other test uses, so slots and rate windows start empty. */
// A random /48 written as the service writes addresses back (no leading zero in a group: "0c1f" comes back as "c1f").
const freshPrefix = () => `2001:db8:${(0x1000 + (crypto.getRandomValues(new Uint16Array(1))[0]! % 0xf000)).toString(16)}`;

describe("Idempotency-Key slots", () => {
  it("an IPv6 caller and a key never share a slot with another caller and a key (2001:db8::1:5 + k vs 2001:db8::1 + 5:k)", async () => {
    const prefix = freshPrefix();
    const a = `${prefix}::1:5`;
    const b = `${prefix}::1`;
    // The old slot name, address + ":" + key, was the same string for both.
    expect(`${a}:k`).toBe(`${b}:5:k`);
    expect(await idempotencySlot(a, "k")).not.toBe(await idempotencySlot(b, "5:k"));
    const edge = envWith({ CLIENT_IP_SOURCE: "cloudflare" });
    const bodyA = { url: media("png-opaque.png") };
    const first = await call(edge, "/api/v1/inspect?profile=fast", { method: "POST", body: bodyA, headers: { "cf-connecting-ip": a, "idempotency-key": "k" } });
    expect(first.status, first.text).toBe(200);
    // B with the same body: a new inspection of its own, not A's answer replayed.
    const sameBody = await call(edge, "/api/v1/inspect?profile=fast", { method: "POST", body: bodyA, headers: { "cf-connecting-ip": b, "idempotency-key": "5:k" } });
    expect(sameBody.status, sameBody.text).toBe(200);
    expect(sameBody.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.parse(sameBody.text).responseSource).not.toBe("fresh");
    // B with another body: not locked out by A's key (no 422).
    const other = await call(edge, "/api/v1/inspect?profile=fast", { method: "POST", body: { url: media("png-opaque.png") }, headers: { "cf-connecting-ip": b, "idempotency-key": "5:k~" } });
    expect(other.status, other.text).toBe(200);
    // A's own retry still replays.
    const retry = await call(edge, "/api/v1/inspect?profile=fast", { method: "POST", body: bodyA, headers: { "cf-connecting-ip": a, "idempotency-key": "k" } });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
  });

  it("one address in two spellings is one caller", async () => {
    const edge = envWith({ CLIENT_IP_SOURCE: "cloudflare" });
    const prefix = freshPrefix();
    const spelled = (address: string) => clientAddressOf(new Request("http://service/", { headers: { "cf-connecting-ip": address } }), edge);
    expect(spelled(`${prefix}:0:0:0:0:1`)).toBe(spelled(`${prefix}::1`));
    expect(spelled("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(spelled("not an address")).toBeUndefined();
  });

  it("a caller the service cannot identify has no slot: its key replays nothing, the same key is no conflict", async () => {
    const unidentified = envWith({ CLIENT_IP_SOURCE: "none" });
    const key = crypto.randomUUID();
    const first = await call(unidentified, "/api/v1/inspect?profile=fast", { method: "POST", body: { url: media("png-opaque.png") }, headers: { "idempotency-key": key } });
    expect(first.status, first.text).toBe(200);
    // Another caller without an address, the same key, another body: no 422 from a slot it would share.
    const second = await call(unidentified, "/api/v1/inspect?profile=fast", { method: "POST", body: { url: media("png-opaque.png") }, headers: { "idempotency-key": key } });
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("answers that say 'try again later' are not replayed", () => {
  const limited = () => envWith({ CLIENT_IP_SOURCE: "cloudflare", INSPECT_RATE_LIMIT: "1", INSPECT_RATE_PERIOD_SECONDS: "1", INSPECT_RATE_LIMITER: undefined });

  it("a batch refused with 429, retried with the same key after the window: a real answer", async () => {
    const target = limited();
    const caller = `${freshPrefix()}::7`;
    const headers = { "cf-connecting-ip": caller };
    const body = { urls: [media("png-opaque.png")] };
    // The window's one inspection is spent, so the batch fits nothing: 429.
    expect((await call(target, `/api/v1/inspect?url=${encodeURIComponent(media("png-opaque.png"))}&profile=fast`, { headers })).status).toBe(200);
    const key = crypto.randomUUID();
    const refused = await call(target, "/api/v1/inspect/batch?profile=fast", { method: "POST", body, headers: { ...headers, "idempotency-key": key } });
    expect(refused.status, refused.text).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    await sleep(wait * 1000 + 50);
    const retried = await call(target, "/api/v1/inspect/batch?profile=fast", { method: "POST", body, headers: { ...headers, "idempotency-key": key } });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.parse(retried.text).results[0].success).toBe(true);
    // That answer is the one kept now.
    const replay = await call(target, "/api/v1/inspect/batch?profile=fast", { method: "POST", body, headers: { ...headers, "idempotency-key": key } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(retried.text);
  });

  it("a single inspect refused with 429 likewise", async () => {
    const target = limited();
    const headers = { "cf-connecting-ip": `${freshPrefix()}::8` };
    const body = { url: media("png-opaque.png") };
    expect((await call(target, "/api/v1/inspect?profile=fast", { method: "POST", body: { url: media("png-opaque.png") }, headers })).status).toBe(200);
    const key = crypto.randomUUID();
    const refused = await call(target, "/api/v1/inspect?profile=fast", { method: "POST", body, headers: { ...headers, "idempotency-key": key } });
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers.get("retry-after")) * 1000 + 50);
    const retried = await call(target, "/api/v1/inspect?profile=fast", { method: "POST", body, headers: { ...headers, "idempotency-key": key } });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("CF-Connecting-IP without Cloudflare's edge", () => {
  const victim = "198.51.100.7";

  it("CLIENT_IP_SOURCE=none (npm start's default): a spoofed header names no one, and starts no runner work under the victim's key", async () => {
    const local = envWith({ CLIENT_IP_SOURCE: "none" });
    const spoofed = new Request("http://service/", { headers: { "cf-connecting-ip": victim } });
    expect(clientAddressOf(spoofed, local)).toBeUndefined();
    const url = media("video.mp4");
    expect((await call(local, `/api/v1/inspect?url=${encodeURIComponent(url)}&profile=fast`, { headers: { "cf-connecting-ip": victim } })).status).toBe(200);
    // The runner's per-caller share: the job carries no caller key at all (shared per origin only), not the victim's.
    expect(await firstSeen(() => runnerClients(url))).toEqual([""]);
  });

  it("CLIENT_IP_SOURCE=forwarded: the address the trusted proxy saw, whatever the client wrote", async () => {
    const proxied = envWith({ CLIENT_IP_SOURCE: "forwarded", TRUSTED_PROXIES: "10.0.0.0/8,fd00::1", INSPECT_RATE_LIMIT: "2", INSPECT_RATE_PERIOD_SECONDS: "60", INSPECT_RATE_LIMITER: undefined });
    const attacker = `${freshPrefix()}::66`;
    const honest = `${freshPrefix()}::7`;
    // The attacker claims the victim's address in both headers; the proxy (10.1.2.3) appended what it saw, and a
    // second proxy (fd00::1) the first one's.
    const spoof = { "cf-connecting-ip": honest, "x-forwarded-for": `${honest}, ${attacker}, 10.1.2.3` };
    expect(clientAddressOf(new Request("http://service/", { headers: spoof }), proxied)).toBe(attacker);
    expect(clientAddressOf(new Request("http://service/", { headers: { "x-forwarded-for": `${honest}, 10.1.2.3, fd00::1` } }), proxied)).toBe(honest);
    // Garbage in the chain before any trusted hop names no one.
    expect(clientAddressOf(new Request("http://service/", { headers: { "x-forwarded-for": "junk" } }), proxied)).toBeUndefined();
    // The attacker's flood spends its own window; the victim's stays whole.
    const url = encodeURIComponent(media("png-opaque.png"));
    const flood: number[] = [];
    for (let i = 0; i < 4; i++) flood.push((await call(proxied, `/api/v1/inspect?url=${url}&profile=fast`, { headers: spoof })).status);
    expect(flood).toEqual([200, 200, 429, 429]);
    const own = await call(proxied, `/api/v1/inspect?url=${url}&profile=fast`, { headers: { "x-forwarded-for": `${honest}, 10.1.2.3` } });
    expect(own.status, own.text).toBe(200);
  });
});
