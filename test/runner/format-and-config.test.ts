import { describe, expect, it } from "vitest";
import { formatBitrate, formatBytes, formatDuration } from "../../shared/format/index.ts";
import { loadConfig } from "../../media-runner/src/config.ts";

describe("shared formatters", () => {
  it("formats durations as m:ss, rounding to the second", () => {
    expect([0, 2.96, 59.4, 59.6, 61, 4500.2].map(formatDuration)).toEqual(["0:00", "0:03", "0:59", "1:00", "1:01", "75:00"]);
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
  });

  it("formats bitrates with SI prefixes", () => {
    expect([0, 999, 128_000, 4_200_000, 999_960, 12_000_000_000].map(formatBitrate))
      .toEqual(["0 bps", "999 bps", "128 kbps", "4.2 Mbps", "1 Mbps", "12 Gbps"]);
  });

  it("formats byte counts with SI prefixes (50 MB is 50_000_000 bytes)", () => {
    expect([999, 1_500, 50_000_000, 2_382_090].map(formatBytes)).toEqual(["999 B", "1.5 kB", "50 MB", "2.4 MB"]);
  });
});

describe("runner configuration", () => {
  const token = "0123456789abcdef";

  it("applies the documented defaults", () => {
    const config = loadConfig({ RUNNER_TOKEN: token });
    expect(config).toMatchObject({
      port: 8788, host: "127.0.0.1", concurrency: 2, maxQueue: 32, maxSourceBytes: 52_428_800,
      fetchTimeoutMs: 10_000, maxRedirects: 5, maxDecodePixels: 50_000_000,
    });
    expect(config.allowlist.entries).toEqual([]);
  });

  it("names every invalid variable", () => {
    expect(() => loadConfig({})).toThrow(/RUNNER_TOKEN/);
    expect(() => loadConfig({ RUNNER_TOKEN: "short" })).toThrow(/RUNNER_TOKEN: must be at least 16/);
    expect(() => loadConfig({ RUNNER_TOKEN: token, RUNNER_PORT: "http", RUNNER_CONCURRENCY: "0" }))
      .toThrow(/RUNNER_PORT[\s\S]*RUNNER_CONCURRENCY|RUNNER_CONCURRENCY[\s\S]*RUNNER_PORT/);
    expect(() => loadConfig({ RUNNER_TOKEN: token, SSRF_ALLOWLIST: "10.0.0.0/99" })).toThrow(/SSRF_ALLOWLIST/);
  });
});
