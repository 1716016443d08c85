// The probe's byte source bounds every edge reader at once: a parser that keeps asking for far-apart bytes
// (a hostile layout) gets a 502 after maxProbeExtraRequests Range requests, not one request per element.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../../worker/config/config.ts";
import { ApiError } from "../../../worker/errors/api-error.ts";
import { fetchPolicy } from "../../../worker/fetch/policy.ts";
import { maxProbeExtraRequests } from "../../../worker/config/limits.ts";
import { RangeByteSource } from "../../../worker/bytes/byte-source.ts";
import { media, origin, originStats } from "../../../testkit/worker/helpers.ts";

async function requestsFor(url: string): Promise<number> {
  const n = new URL(url).searchParams.get("n")!;
  return (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n).length;
}

describe("the probe's byte source", () => {
  it(`makes at most ${maxProbeExtraRequests} Range requests beyond the head, whatever a parser asks`, async () => {
    const url = media("video.mp4");
    const size = (await (await fetch(url)).arrayBuffer()).byteLength;
    const before = await requestsFor(url);
    const config = getConfig(env);
    const source = new RangeByteSource(url, size, true, fetchPolicy(config), size, 1024);
    // Small reads 2 KiB apart: each misses what is held, so each would cost a request.
    const step = 2048;
    expect(size / step).toBeGreaterThan(maxProbeExtraRequests + 1);
    let refused: unknown;
    let reads = 0;
    for (let offset = 0; offset + 16 <= size; offset += step) {
      try {
        await source.read(offset, 16);
        reads += 1;
      } catch (err) {
        refused = err;
        break;
      }
    }
    expect(reads).toBe(maxProbeExtraRequests);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(502);
    expect(source.extraRequests).toBe(maxProbeExtraRequests);
    expect((await requestsFor(url)) - before).toBe(maxProbeExtraRequests);
  });
});
