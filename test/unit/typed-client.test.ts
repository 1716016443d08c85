// The typed client (client/, hono/client over the Worker's AppType) covers every route: `tsc` compiles a script
// calling each one (inspect POST and GET, batch, job, thumbnails, storyboards, /oembed, /v?url=, /health,
// /problems) with typed answers, and refuses misuses of them, so a route left out of AppType fails here.
// The script and the misuses are in testkit/client-typecheck.ts, which checks them in one tsc run with the other
// typed-client checks.
import { describe, expect, it } from "vitest";
import { checkedFiles, clientTypecheck } from "../../testkit/client-typecheck.ts";

describe("typed client routes", () => {
  it("tsc compiles calls to every route and refuses misuses of /oembed and /v", async () => {
    const { output, errorsIn } = await clientTypecheck();
    // Nothing in the calls: every route is in AppType with the types used.
    expect(errorsIn(checkedFiles.calls), output).toEqual([]);
    // Each misuse line is refused.
    const misuse = errorsIn(checkedFiles.routeMisuse);
    for (const line of [3, 4, 6]) expect(misuse.some((e) => e.includes(`${checkedFiles.routeMisuse}(${line},`)), `misuse line ${line}\n${output}`).toBe(true);
  }, 300_000);
});
