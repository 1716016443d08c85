// A short `npm run load`: zero errors and exactly one origin probe per URL under concurrency.
import { describe, expect, it } from "vitest";
import { loadSummary, runLoad } from "../../bench/load.ts";

describe("load", () => {
  it("600 inspections at concurrency 30 over 20 URLs: all 200/202, one probe per URL", async () => {
    const result = await runLoad({ count: 600, concurrency: 30, urls: 20 });
    console.log(loadSummary(result, 30));
    for (const e of result.errorSamples) console.log(e);
    expect(result.errors).toBe(0);
    expect(result.probesOverOne).toBe(0);
  });
});
