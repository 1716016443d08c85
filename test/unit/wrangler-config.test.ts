/**
 * The production config agrees with itself (issue 26): the Worker spreads jobs over as many runner containers as
 * the platform may start, fetches with the platform transport, and the rate-limit bindings match the settings.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../worker/config/config.ts";

const toml = readFileSync(join(import.meta.dirname, "..", "..", "wrangler.toml"), "utf8");
const value = (key: string) => toml.split("\n").map((l) => l.trim()).filter((l) => l.startsWith(`${key} = `)).map((l) => l.slice(key.length + 3).replace(/^"|"$/g, ""));

describe("wrangler.toml (production)", () => {
  it("spreads jobs over exactly max_instances runner containers", () => {
    expect(value("RUNNER_INSTANCES")).toEqual(value("max_instances"));
  });
  it("uses the platform transport, observability and a container size that fits the runner", () => {
    const config = getConfig({ ENVIRONMENT: value("ENVIRONMENT")[0], OUTBOUND_TRANSPORT: value("OUTBOUND_TRANSPORT")[0] });
    expect(config.ENVIRONMENT).toBe("production");
    expect(config.OUTBOUND_TRANSPORT).toBe("platform");
    expect(toml).toMatch(/\[observability\]\s*\nenabled = true/);
    expect(value("instance_type")[0]).toMatch(/^standard-\d$/);
  });
  it("keeps the inspect rate-limit binding equal to the setting's default", () => {
    const config = getConfig({});
    expect(toml).toContain(`simple = { limit = ${config.INSPECT_RATE_LIMIT}, period = ${config.INSPECT_RATE_PERIOD_SECONDS} }`);
  });
});
