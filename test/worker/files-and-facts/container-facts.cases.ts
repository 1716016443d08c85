// Issue 23 item 5: every container class `fast` reads from its header (MPEG-PS, AMR, AVI, FLV, ADTS, AC-3, E-AC-3,
// RF64, fragmented MP4 with and without mehd, MPEG-TS, JPEG 2000, netpbm), made at set-up
// (testkit/container-fixtures.ts) and served by the loopback origin. For each: the category in fast and full,
// fast's duration, fps, dimensions and sample rate equal to full's and to ffprobe's own reading (computed in
// global-setup), and metadata.sources naming the evidence. When the edge completes a metadata stage from the
// header, full keeps that result (the runner does the previews), so full's facts and sources are fast's.
import { describe, expect, it } from "vitest";
import { containerFixtures, type ContainerFixture } from "../../../testkit/container-fixtures.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const reference = await fixtureFacts("containerFacts");

interface Facts { duration?: number; fps?: number; width?: number; height?: number; sampleRate?: number; sources?: Record<string, string> }

function factsOf(data: any, category: ContainerFixture["category"]): Facts {
  const m = data.metadata?.[category];
  return { duration: m?.duration?.seconds, fps: m?.fps, width: m?.width, height: m?.height, sampleRate: m?.sampleRate, sources: data.metadata?.sources };
}

const near = (actual: number | undefined, expected: number | undefined, tolerance: number) =>
  actual !== undefined && expected !== undefined && Math.abs(actual - expected) / expected <= tolerance;

async function inspected(c: ContainerFixture, profile: "fast" | "full") {
  const { status, body } = await inspect(media(c.file), `profile=${profile}`);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.data.semantic.semanticType, `${profile}: ${JSON.stringify(body.data.identity)}`).toBe(c.category);
  expect(body.processing.completedStages, `${profile}: ${JSON.stringify(body.processing)}`).toContain(`metadata:${c.category}`);
  return factsOf(body.data, c.category);
}

describe("container classes: fast equals full and ffprobe", { timeout: 60_000 }, () => {
  it.each(containerFixtures)("$file ($category): $facts", async (c) => {
    const ref = reference[c.file]!;
    const fast = await inspected(c, "fast");
    const full = await inspected(c, "full");
    console.log(`[container-facts] ${c.file} fast=${JSON.stringify(fast)} full=${JSON.stringify(full)} ffprobe=${JSON.stringify(ref)}`);
    // ffprobe reads AMR's duration from a nominal bitrate (3-5 % long for most modes); the frames are the truth.
    const truth = c.durationFromPackets ? ref.packetsEnd : ref.duration;
    for (const fact of c.facts) {
      if (fact === "duration") {
        expect(near(fast.duration, truth, 0.02), `fast duration ${fast.duration} vs ffprobe ${truth}`).toBe(true);
        expect(near(fast.duration, full.duration, 0.02), `fast ${fast.duration} vs full ${full.duration}`).toBe(true);
        expect(fast.sources?.duration).toBeDefined();
      }
      if (fact === "fps") {
        expect(near(fast.fps, ref.fps, 0.01), `fast fps ${fast.fps} vs ffprobe ${ref.fps}`).toBe(true);
        expect(near(fast.fps, full.fps, 0.01), `fast fps ${fast.fps} vs full ${full.fps}`).toBe(true);
      }
      if (fact === "dimensions") {
        expect([fast.width, fast.height]).toEqual([ref.width, ref.height]);
        expect([fast.width, fast.height]).toEqual([full.width, full.height]);
        expect(fast.sources?.dimensions).toBe("header");
      }
      if (fact === "sampleRate") {
        expect(fast.sampleRate).toBe(ref.sampleRate);
        expect(fast.sampleRate).toBe(full.sampleRate);
        expect(fast.sources?.sampleRate).toBe("header");
      }
    }
    for (const fact of c.facts) expect(full.sources?.[fact], `full sources ${JSON.stringify(full.sources)}`).toBeDefined();
  });
});
