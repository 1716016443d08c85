/**
 * `full`'s diagnostics say what the whole inspection cost the origin (issue 10): bytesPulled, requests and
 * redirects, edge and media runner together, matching what the origin itself counted.
 */
import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

async function requestsFor(url: string) {
  const nonce = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === nonce);
}

describe("diagnostics: bytes, requests and redirects of the whole inspection", () => {
  it("a video's full inspection (edge probe + runner) reports the requests the origin saw and at most the bytes it sent", async () => {
    const url = media("video-moov-end.mp4");
    const res = await inspect(url, "profile=full");
    expect(res.status).toBe(200);
    const d = res.body.data.diagnostics;
    const seen = await requestsFor(url);
    expect(d.requests).toBe(seen.length);
    expect(d.redirects).toBe(0);
    const sent = seen.reduce((n, r) => n + r.bytes, 0);
    // The origin may have written a little more than was read into a connection the reader dropped.
    expect(d.bytesPulled).toBeGreaterThan(0);
    expect(d.bytesPulled).toBeLessThanOrEqual(sent);
    expect(d.bytesPulled).toBeGreaterThan(sent * 0.5);
  });

  it("an edge image counts the probe's head and the download of the rest, and not for other profiles", async () => {
    const url = media("image-1280x720.png");
    const full = await inspect(url, "profile=full");
    expect(full.status).toBe(200);
    const seen = await requestsFor(url);
    expect(full.body.data.diagnostics.requests).toBe(seen.length);
    expect(full.body.data.diagnostics.bytesPulled).toBe(seen.reduce((n, r) => n + r.bytes, 0));
    const standard = await inspect(url);
    expect(standard.body.data.diagnostics).toBeUndefined();
  });
});
