/**
 * Each byte crosses the wire once (issue 10, item 2): a direct runner call carries the bytes the edge's probe
 * already read, so the runner never asks the origin for them again.
 */
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

async function requestsFor(url: string) {
  const nonce = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce);
}

const fromRunner = (headers: Record<string, string>) => String(headers["user-agent"]).startsWith("media-inspect-runner");

describe("the probe's head handed to the runner", () => {
  it.each(["video.mp4", "video-moov-end.mp4"])("%s: the runner's requests start past what the edge read", async (file) => {
    const url = media(file);
    const res = await inspect(url, "profile=full");
    expect(res.status).toBe(200);
    expect(res.body.data.preview.thumbnail.dimensions).toBe("320x180");
    const seen = await requestsFor(url);
    const head = seen[0]!;
    expect(fromRunner(head.headers)).toBe(false);
    expect(head.range).toMatch(/^bytes=0-/);
    const runner = seen.filter((r) => fromRunner(r.headers));
    expect(runner.length).toBeGreaterThan(0);
    for (const r of runner) {
      const start = Number(/^bytes=(\d+)-/.exec(r.range ?? "")?.[1] ?? "0");
      expect(start).toBeGreaterThanOrEqual(head.bytes);
    }
  });
});
