import { describe, expect, it } from "vitest";
import { getConfig } from "../../worker/config.ts";

describe("worker configuration", () => {
  it("applies the documented defaults when nothing is set", () => {
    const config = getConfig({});
    expect(config).toMatchObject({ FETCH_TIMEOUT_MS: 10_000, MAX_SOURCE_BYTES: 50 * 1024 * 1024, MAX_REDIRECTS: 5, SSRF_ALLOWLIST: "", WEBHOOK_SECRET: "" });
  });

  it("refuses a bad value at start, naming the variable", () => {
    expect(() => getConfig({ FETCH_TIMEOUT_MS: "soon" })).toThrow(/FETCH_TIMEOUT_MS/);
    expect(() => getConfig({ WEBHOOK_SECRET: "not base64!" })).toThrow(/WEBHOOK_SECRET/);
  });

  it("accepts a Standard Webhooks secret", () => {
    expect(getConfig({ WEBHOOK_SECRET: "whsec_c2VjcmV0LXNlY3JldA==" }).WEBHOOK_SECRET).toBe("whsec_c2VjcmV0LXNlY3JldA==");
  });
});
