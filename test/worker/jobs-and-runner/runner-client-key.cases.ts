// The caller reaches the media runner as an opaque key (RunnerRequest.client, issue 20 item 7): the runner
// shares its slots and CPU per caller, then per origin. The key is a hash of the client's address (never the
// address), the same for one caller, different for two, on the direct call of `full` and the queued call of `fast`;
// absent when the request names no client (all such callers would otherwise be one crowded caller).
import { describe, expect, it } from "vitest";
import { firstSeen, runnerClients } from "../../../testkit/worker/jobs.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

const clientsWhenCalled = (url: string) => firstSeen(() => runnerClients(url));

describe("the caller's key on the runner work it starts", { timeout: 60_000 }, () => {
  it("is an opaque hash, one per caller, on direct and queued calls", async () => {
    const a1 = media("video.mp4");
    const a2 = media("video-moov-end.mp4");
    const b = media("video.webm");
    expect((await inspect(a1, "profile=full", { headers: { "cf-connecting-ip": "198.51.100.7" } })).status).toBe(200);
    expect((await inspect(a2, "profile=fast", { headers: { "cf-connecting-ip": "198.51.100.7" } })).status).toBe(200);
    expect((await inspect(b, "profile=full", { headers: { "cf-connecting-ip": "203.0.113.9" } })).status).toBe(200);
    const [keyA1] = await clientsWhenCalled(a1);
    const [keyA2] = await clientsWhenCalled(a2);
    const [keyB] = await clientsWhenCalled(b);
    expect(keyA1).toMatch(/^[0-9a-f]{24}$/);
    expect(keyA2).toBe(keyA1);
    expect(keyB).toMatch(/^[0-9a-f]{24}$/);
    expect(keyB).not.toBe(keyA1);
    expect(keyA1).not.toContain("198");
  });

  it("is left out for a request without CF-Connecting-IP (the runner then shares per origin only)", async () => {
    const url = media("video.mp4");
    expect((await inspect(url, "profile=full")).status).toBe(200);
    expect(await clientsWhenCalled(url)).toEqual([""]);
  });
});
