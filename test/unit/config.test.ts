import { describe, expect, it } from "vitest";
import { ConfigSchema, getConfig } from "../../worker/config/config.ts";

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
});
