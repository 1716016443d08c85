// Seeded fuzz of the real `npm start` (a short run of `npm run fuzz`): no 500, no hang.
import { describe, expect, it } from "vitest";
import { fuzzOnce, fuzzSummary } from "../../bench/fuzz.ts";

const seed = 20_261_122;

describe("fuzz (seeded, bounded)", () => {
  it("answers 400 random requests and corrupted media without a 500 or a hang", async () => {
    const result = await fuzzOnce({ count: 400, seed, concurrency: 10 });
    console.log(fuzzSummary(result, seed));
    expect(result.hangs).toBe(0);
    expect(Object.values(result.byStatus).reduce((a, b) => a + b, 0)).toBe(400);
    // Depends on the content-type mapping fix in worker/http (issue 14: wrong content types gave 500);
    // fails on a branch without it, listing the offending requests.
    expect(result.serverErrors).toEqual([]);
  });
});
