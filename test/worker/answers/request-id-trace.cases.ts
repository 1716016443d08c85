// The X-Request-Id of an inspection follows the runner work it starts: the direct runner call of a `full`
// inspection and the queued call of a `fast` one both carry it (the runner logs it, test/runner/request-id.test.ts),
// so one request can be followed from the Worker's log line into the runner's.
import { describe, expect, it } from "vitest";
import { firstSeen, runnerRequestIds } from "../../../testkit/worker/jobs.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

const idsWhenCalled = (url: string) => firstSeen(() => runnerRequestIds(url));

describe("the inspection's X-Request-Id on the runner work it starts", { timeout: 40_000 }, () => {
  it("full (direct dispatch): the runner call carries the caller's id", async () => {
    const url = media("video.mp4");
    const { status, headers } = await inspect(url, "profile=full", { headers: { "x-request-id": "trace-full-1" } });
    expect(status).toBe(200);
    expect(headers.get("x-request-id")).toBe("trace-full-1");
    expect(await idsWhenCalled(url)).toEqual(["trace-full-1"]);
  });

  it("fast (through the queue): the queued call carries the generated id the caller got back", async () => {
    const url = media("video-moov-end.mp4");
    const { status, headers } = await inspect(url, "profile=fast");
    expect(status).toBe(200);
    const id = headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await idsWhenCalled(url)).toEqual([id]);
  });
});
