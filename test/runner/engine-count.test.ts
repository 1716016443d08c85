/**
 * Each engine process costs its start-up (tens of ms of CPU for Debian's ffmpeg), so the job's log line says how
 * many a job started: the meter counts every runProcess under it, refused ones not.
 */
import { describe, expect, it } from "vitest";
import { EngineMeter, withEngineMeter } from "../../media-runner/src/media/engine-meter.ts";
import { runProcess } from "../../media-runner/src/media/run-process.ts";

const run = () => runProcess("/bin/true", [], { timeoutMs: 5_000, maxStdoutBytes: 1024 });

describe("engine processes per job", () => {
  it("counts each engine started under the job's meter, and none started elsewhere", async () => {
    const meter = new EngineMeter(60_000);
    await withEngineMeter(meter, async () => {
      await run();
      await Promise.all([run(), run()]);
    });
    await run(); // outside the job: not its engine
    expect(meter.started).toBe(3);
  });

  it("an engine refused because the budget is spent is not counted", async () => {
    const meter = new EngineMeter(0);
    await expect(withEngineMeter(meter, run)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(meter.started).toBe(0);
  });
});
