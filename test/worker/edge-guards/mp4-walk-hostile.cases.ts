// The edge's moov walk (worker/probe/mp4-boxes.ts) against moovs rewritten to attack it (testkit/hostile-mp4.ts):
// every answer is a 200 or a 4xx/502 in the error envelope, never a 500, within a few seconds, with the probe's
// Range requests inside the byte source's cap; where the file is still readable the facts are the honest file's.
import { describe, expect, it } from "vitest";
import { hostileMp4s } from "../../../testkit/hostile-mp4.ts";
import { maxProbeExtraRequests } from "../../../worker/config/limits.ts";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

/** The Worker's own requests for this URL (the runner's background work is not the probe's). */
async function edgeRequestsFor(url: string) {
  const n = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) =>
    new URL(r.path, origin).searchParams.get("n") === n && !String(r.headers["user-agent"] ?? "").startsWith("media-inspect-runner"));
}

async function fast(file: string) {
  const url = media(file);
  const started = Date.now();
  const { status, body } = await inspect(url, "profile=fast");
  return { status, body, ms: Date.now() - started, requests: await edgeRequestsFor(url) };
}

describe("fast on MP4s whose moov attacks the walk", { timeout: 30_000 }, () => {
  it.each(Object.entries(hostileMp4s))("%s (%s): no 500, bounded requests", async (file) => {
    const { status, body, ms, requests } = await fast(file);
    expect(status, JSON.stringify(body)).toBeLessThan(500);
    if (status !== 200) expect(body).toMatchObject({ status: "error", error: { code: expect.any(String) } });
    expect(ms).toBeLessThan(10_000);
    expect(requests.length).toBeLessThanOrEqual(1 + maxProbeExtraRequests);
  });

  it("thousands of empty boxes before the traks: the walk gives up at its box cap and the moov read whole still gives the facts", async () => {
    const honest = await fast("big-moov-end.mp4");
    const padded = await fast("hostile-free-boxes.mp4");
    expect(padded.status).toBe(200);
    const { width, height, codec, fps, duration } = honest.body.data.metadata.video;
    expect(padded.body.data.metadata.video).toMatchObject({ width, height, codec, fps, duration });
    expect(padded.body.data.semantic.enrichmentSources).toContain("tracks:mp4-moov");
  });

  it("a trak whose size runs past the moov is read up to the moov's end, not beyond the file", async () => {
    const { status, body, requests } = await fast("hostile-trak-size.mp4");
    expect(status).toBe(200);
    expect(body.data.semantic.semanticType).toBe("video");
    expect(body.data.metadata.video).toMatchObject({ width: 160, height: 120, codec: "h264" });
    expect(requests.length).toBeLessThanOrEqual(3);
  });
});
