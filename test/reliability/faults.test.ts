// Faults stay local (a short `npm run faults`): misbehaving origins do not slow unrelated inspections > 2x.
import { describe, expect, it } from "vitest";
import { runFaults } from "../../bench/faults.ts";

describe("origin faults", () => {
  it("with 24 concurrent fault origins (slow, trickle, reset, hang) good files keep p50 within 2x", async () => {
    const result = await runFaults({ faults: 24, samples: 24 });
    console.log(`faults: p50 ${result.baselineP50} -> ${result.faultedP50} ms (${result.ratio}x), ${JSON.stringify(result.faultAnswers)}, fault p50 ${JSON.stringify(result.faultP50)}`);
    expect(result.goodErrors).toBe(0);
    expect(result.ratio).toBeLessThanOrEqual(2);
    // Every fault got an answer (an error status), none a 500.
    expect(Object.keys(result.faultAnswers).filter((k) => k.endsWith(":500") || k.endsWith(":0"))).toEqual([]);
    // Slow, trickling and hanging origins release the caller at the deadline (FETCH_TIMEOUT_MS, 10 s), not later.
    for (const kind of ["slow", "trickle", "hang"]) expect(result.faultP50[kind]).toBeLessThan(15_000);
  });
});
