import { describe, expect, it } from "vitest";
import { ConfigSchema, configSlices, getConfig } from "../../worker/config/config.ts";

const secretOf = (bytes: number) => "whsec_" + Buffer.alloc(bytes, 7).toString("base64");

describe("worker configuration", () => {
  it("applies the documented defaults when nothing is set", () => {
    const config = getConfig({});
    expect(config).toMatchObject({
      FETCH_TIMEOUT_MS: 10_000,
      MAX_SOURCE_BYTES: 50 * 1024 * 1024,
      MAX_REDIRECTS: 5,
      SSRF_ALLOWLIST: "",
      WEBHOOK_SECRET: "",
      CORS_ORIGINS: "*",
    });
    expect(config.PUBLIC_BASE_URL).toBeUndefined();
  });

  it("refuses a bad value at start, naming the variable", () => {
    expect(() => getConfig({ FETCH_TIMEOUT_MS: "soon" })).toThrow(/FETCH_TIMEOUT_MS/);
    expect(() => getConfig({ PUBLIC_BASE_URL: "not a url" })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => getConfig({ CORS_ORIGINS: "https://app.example/path" })).toThrow(/CORS_ORIGINS.*not an origin/);
  });

  it.each([
    ["not base64", "whsec_not base64!", /WEBHOOK_SECRET: not base64/],
    ["base64 of 1 byte", secretOf(1), /WEBHOOK_SECRET: decodes to 1 bytes/],
    ["base64 of 23 bytes", secretOf(23), /WEBHOOK_SECRET: decodes to 23 bytes.*at least 24/],
    ["whsec_ with nothing after it", "whsec_", /WEBHOOK_SECRET: not base64/],
    ["a broken base64 length", "whsec_QUJDR", /WEBHOOK_SECRET: not base64/],
  ])("refuses a WEBHOOK_SECRET that is %s, saying what is expected", (_name, secret, message) => {
    expect(() => getConfig({ WEBHOOK_SECRET: secret })).toThrow(message);
    expect(() => getConfig({ WEBHOOK_SECRET: secret })).toThrow(/whsec_ followed by the base64 of at least 24 random bytes/);
  });

  it("accepts a Standard Webhooks secret of 24 bytes or more, with or without the whsec_ prefix", () => {
    expect(getConfig({ WEBHOOK_SECRET: secretOf(24) }).WEBHOOK_SECRET).toBe(secretOf(24));
    expect(getConfig({ WEBHOOK_SECRET: secretOf(32).slice("whsec_".length) }).WEBHOOK_SECRET).toBe(secretOf(32).slice(6));
  });

  it("accepts a list of CORS origins and a public base URL", () => {
    const config = getConfig({ CORS_ORIGINS: "https://app.example, http://127.0.0.1:3000", PUBLIC_BASE_URL: "https://media.example" });
    expect(config.CORS_ORIGINS).toBe("https://app.example, http://127.0.0.1:3000");
    expect(config.PUBLIC_BASE_URL).toBe("https://media.example");
  });

  it("lists every setting npm start passes on (the schema's keys)", () => {
    expect(Object.keys(ConfigSchema.shape)).toEqual(expect.arrayContaining(["WEBHOOK_SECRET", "RUNNER_TOKEN", "CORS_ORIGINS", "PUBLIC_BASE_URL", "RUNNER_TIMEOUT_MS"]));
  });

  it("is composed of one slice per layer: every setting in exactly one slice, each slice valid on its own", () => {
    const owners = new Map<string, string[]>();
    for (const [layer, slice] of Object.entries(configSlices)) {
      for (const key of Object.keys(slice.shape)) owners.set(key, [...(owners.get(key) ?? []), layer]);
      // A slice applies its own defaults, the same the composed config applies.
      const alone = slice.parse({});
      expect(getConfig({})).toMatchObject(alone);
    }
    expect([...owners].filter(([, layers]) => layers.length > 1)).toEqual([]);
    expect([...owners.keys()].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
    expect(configSlices.fetch.safeParse({ FETCH_TIMEOUT_MS: "soon" }).success).toBe(false);
    expect(configSlices.webhook.safeParse({ WEBHOOK_SECRET: "whsec_" }).success).toBe(false);
  });

  it("keeps the environment variable names the deployment uses", () => {
    expect(Object.keys(ConfigSchema.shape).sort()).toEqual([
      "ENVIRONMENT", "OUTBOUND_TRANSPORT", "SSRF_ALLOWLIST", "DOH_RESOLVER_URL", "FETCH_TIMEOUT_MS", "MAX_SOURCE_BYTES",
      "MAX_REDIRECTS", "PROBE_HEAD_BYTES", "PROBE_FRONT_HEAD_BYTES", "PROBE_STREAM_HEAD_BYTES", "PROBE_READ_MIN_BYTES",
      "MAX_TAIL_BYTES", "RECORD_TTL_SECONDS", "ERROR_TTL_SECONDS", "THUMBNAIL_MAX_PX", "MAX_EDGE_IMAGE_BYTES",
      "MAX_DECODE_PIXELS", "RUNNER_URL", "RUNNER_URLS", "RUNNER_INSTANCES", "RUNNER_RETRY_AFTER_MS", "RUNNER_TOKEN",
      "RUNNER_TIMEOUT_MS", "RUNNER_MAX_ATTEMPTS", "RUNNER_RETRY_BASE_SECONDS", "STAGE_REQUEUE_AFTER_MS", "RUNNER_DISPATCH",
      "DISPATCH_WATCHDOG_MS", "QUEUE_PICKUP_GRACE_MS", "CONSUMER_CONCURRENCY", "FULL_WAIT_TIMEOUT_MS", "WEBHOOK_SECRET",
      "WEBHOOK_MAX_ATTEMPTS", "WEBHOOK_RETRY_BASE_MS", "INSPECT_RATE_LIMIT", "INSPECT_RATE_PERIOD_SECONDS",
      "CLIENT_IP_SOURCE", "TRUSTED_PROXIES", "WEBHOOK_HOST_RATE_LIMIT", "WEBHOOK_HOST_RATE_PERIOD_SECONDS",
      "JOB_TTL_SECONDS", "CORS_ORIGINS", "MCP_ALLOWED_ORIGINS", "PUBLIC_BASE_URL", "OEMBED_BASE_URL", "C2PA_TRUST_ANCHORS",
    ].sort());
  });
});
