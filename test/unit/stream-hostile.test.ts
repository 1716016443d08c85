// Hostile manifests with 10,000 renditions, each form a packager could write: DASH Representations in one
// AdaptationSet, DASH AdaptationSets, HLS variants. Each is refused with a reason that names the limit, in one bounded
// pass, before any parser builds a model of every rendition. (HLS EXT-X-MEDIA renditions: stream-tracks.test.ts.)
import { describe, expect, it } from "vitest";
import { inspectManifest, type FetchedManifest } from "../../worker/manifest/index.ts";
import { ManifestError } from "../../worker/manifest/manifest-error.ts";

const origin = "https://media.example/";
const none = async (url: string): Promise<FetchedManifest> => { throw new Error(`no fetch expected: ${url}`); };

async function refusal(protocol: "hls" | "dash", text: string): Promise<{ reason: string; ms: number }> {
  const started = performance.now();
  const error = await inspectManifest(protocol, { text, finalUrl: `${origin}m` }, none).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ManifestError);
  return { reason: (error as ManifestError).reason, ms: performance.now() - started };
}

const mpd = (body: string) => `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" `
  + `minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011"><Period id="p0">${body}</Period></MPD>`;

describe("10,000 renditions", () => {
  it("DASH: 10,000 text Representations in one AdaptationSet", async () => {
    const reps = Array.from({ length: 10_000 }, (_, i) => `<Representation id="t${i}" bandwidth="1000"><BaseURL>t${i}.vtt</BaseURL></Representation>`).join("");
    const { reason, ms } = await refusal("dash", mpd(`<AdaptationSet contentType="text" mimeType="text/vtt" lang="en">${reps}</AdaptationSet>`));
    expect(reason).toMatch(/more than \d+ (representations|BaseURL elements)/);
    expect(ms).toBeLessThan(5_000);
  });

  it("DASH: 10,000 audio AdaptationSets, one language each", async () => {
    const sets = Array.from({ length: 10_000 }, (_, i) => `<AdaptationSet contentType="audio" mimeType="audio/mp4" lang="x${i}">`
      + `<Representation id="a${i}" codecs="mp4a.40.2" bandwidth="1"/></AdaptationSet>`).join("");
    const { reason, ms } = await refusal("dash", mpd(sets));
    expect(reason).toMatch(/more than 64 adaptation sets/);
    expect(ms).toBeLessThan(5_000);
  });

  it("HLS: 10,000 variants", async () => {
    const lines = ["#EXTM3U"];
    for (let i = 0; i < 10_000; i++) lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${1000 + i},CODECS="avc1.64001e"`, `v${i}.m3u8`);
    const { reason, ms } = await refusal("hls", lines.join("\n"));
    expect(reason).toMatch(/more than 64 variants/);
    expect(ms).toBeLessThan(5_000);
  });
});
