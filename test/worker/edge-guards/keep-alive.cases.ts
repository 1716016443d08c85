import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

// Issue 22 item 2: on a distant origin every new connection costs a round trip (two with TLS), so one
// inspection's reads to one origin share one kept-alive connection, pinned to the checked address.

/** The edge's requests for one inspected URL (the runner's, with their own user agent, are left out). */
async function edgeRequests(url: string) {
  const n = new URL(url).searchParams.get("n");
  const { requests } = (await originStats()) as { requests: { path: string; headers: Record<string, string>; connection?: number }[] };
  return requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n && r.headers["user-agent"]?.startsWith("media-inspect/"));
}

describe("pinned transport keep-alive", () => {
  it("a fast inspection of a moov-last MP4 makes several requests over one connection", async () => {
    const url = media("video-moov-end.mp4");
    const result = await inspect(url, "profile=fast");
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const requests = await edgeRequests(url);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.every((r) => r.headers.connection === "keep-alive")).toBe(true);
    expect(new Set(requests.map((r) => r.connection)).size).toBe(1);
  });

  it("two inspections of the same origin never share a connection", async () => {
    const first = media("video-moov-end.mp4");
    const second = media("video-moov-end.mp4");
    expect((await inspect(first, "profile=fast")).status).toBe(200);
    expect((await inspect(second, "profile=fast")).status).toBe(200);
    const a = new Set((await edgeRequests(first)).map((r) => r.connection));
    const b = new Set((await edgeRequests(second)).map((r) => r.connection));
    expect(a.size).toBe(1);
    expect([...a].some((c) => b.has(c))).toBe(false);
  });
});
