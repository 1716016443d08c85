// Starvation (a short `npm run starvation`): an unrelated inspection behind 12 inspections of media on slow
// origins gets a runner slot within one lend instead of waiting for the slow jobs (5 to 14 s with the old FIFO).
// The end-to-end ratio is logged, not asserted: on 2 shared cores the lent jobs' own CPU phases make it noisy
// (see the report of issue 20; `npm run starvation` prints it).
import { describe, expect, it } from "vitest";
import { runStarvation } from "../../bench/starvation.ts";

/** The runner's slot wait allowed to the unrelated job: one lend (RUNNER_SLOT_LEND_MS, 1 s) plus scheduling slack. */
const maxSlotWaitMs = 2_500;

describe("runner starvation", () => {
  it("an unrelated video behind 12 slow-origin inspections gets a runner slot within one lend", async () => {
    const result = await runStarvation({ slow: 12, origins: 4, samples: 2 });
    console.log(`starvation: ${result.aloneMs} -> ${result.behindMs} ms (${result.ratio}x), slot wait ${result.aloneWaitMs} -> ${result.behindWaitMs} ms`);
    expect(result.statuses).toEqual({ "200": 6 });
    // Structural: the unrelated job got a slot within one lend (the FIFO made it wait 5 to 14 s here).
    expect(result.behindWaitMs).toBeLessThan(maxSlotWaitMs);
  });
});
