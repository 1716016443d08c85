/**
 * The waveform as BBC audiowaveform JSON: the runner's buckets are true per-channel minima and maxima at the
 * file's own sample rate, so each channel's peak equals ffmpeg's `astats` peak on the local file (within 0.5 dB,
 * in practice the 16-bit rounding), on broadband noise, where a low-rate mono downmix used to read low.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerApp } from "../../media-runner/src/app.ts";
import { AudioWaveform } from "../../shared/shapes/media-data.ts";
import { RunnerResponse } from "../../shared/shapes/runner.ts";
import { processRequest, testApp } from "../../testkit/runner/harness.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";

const dir = join(import.meta.dirname, "..", ".fixtures", "waveform-format");

/** Left: white noise at 0.3; right: a 1 kHz tone at 0.5 that is silent for the first 4 s. */
const stereo = ["-f", "lavfi", "-i", "anoisesrc=color=white:amplitude=0.3:sample_rate=44100:seed=7", "-f", "lavfi",
  "-i", "sine=frequency=1000:sample_rate=44100,volume=4*gte(t\\,4):eval=frame", "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]",
  "-map", "[a]", "-t", "12"];
const fixtures: Record<string, string[]> = {
  "noise-tone.flac": [...stereo, "-c:a", "flac", "-f", "flac"],
  "noise-tone.mp3": [...stereo, "-c:a", "libmp3lame", "-b:a", "192k", "-f", "mp3"],
  // Mono pink noise (broadband, the case where an 8 kHz downmix lost the peaks), in AAC.
  "pink.m4a": ["-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.25:sample_rate=48000:seed=3", "-t", "20", "-c:a", "aac", "-b:a", "160k", "-f", "mp4"],
};

function ensureFixtures(): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(fixtures)) {
    const path = join(dir, name);
    if (existsSync(path)) continue;
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, `${path}.partial`]);
    renameSync(`${path}.partial`, path);
  }
}

/** ffmpeg's own astats on the local file: each channel's sample peak in dBFS. */
function astatsPeaksDb(path: string): number[] {
  const run = spawnSync("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-map", "0:a:0", "-af", "astats=measure_overall=none:measure_perchannel=Peak_level", "-f", "null", "-"], { encoding: "utf8" });
  return [...run.stderr.matchAll(/Peak level dB: (-?[0-9.]+|-inf)/g)].map((m) => Number(m[1]));
}

/** Each channel's peak in dBFS from the JSON's min/max pairs. */
function jsonPeaksDb(doc: AudioWaveform): number[] {
  const peaks = new Array<number>(doc.channels).fill(0);
  for (let i = 0; i < doc.length; i++) {
    for (let c = 0; c < doc.channels; c++) {
      const min = doc.data[(i * doc.channels + c) * 2]!;
      const max = doc.data[(i * doc.channels + c) * 2 + 1]!;
      peaks[c] = Math.max(peaks[c]!, Math.abs(min), Math.abs(max));
    }
  }
  return peaks.map((p) => 20 * Math.log10(p / 32767));
}

let origin: LoopbackOrigin;
let app: RunnerApp;

beforeAll(async () => {
  ensureFixtures();
  origin = await startLoopbackOrigin([dir]);
  app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`, RUNNER_JOB_TIMEOUT_MS: "240000", RUNNER_PROCESS_TIMEOUT_MS: "60000" });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function waveformOf(file: string) {
  const res = await processRequest(app, { url: `${origin.url}/files/${file}`, category: "audio", stages: ["metadata", "waveform"] });
  expect(res.statusCode).toBe(200);
  const result = RunnerResponse.parse(res.json());
  expect(result.stages?.waveform).toEqual({ status: "done" });
  return { doc: AudioWaveform.parse(result.audiowaveform), waveform: result.waveform!, metadata: result.metadata! };
}

describe("waveform as audiowaveform JSON", () => {
  for (const name of Object.keys(fixtures)) {
    it(`${name}: version 2, every channel at the file's rate, each channel's peak within 0.5 dB of ffmpeg's astats`, async () => {
      const { doc, waveform, metadata } = await waveformOf(name);
      const audio = metadata.audio!;
      expect(doc).toMatchObject({ version: 2, bits: 16, channels: audio.channels, sample_rate: audio.sampleRate });
      expect(doc.data).toHaveLength(doc.length * doc.channels * 2);
      // Every sample is in one bucket: length x samples_per_pixel covers the duration, less than one bucket over.
      const samples = audio.duration!.seconds * doc.sample_rate;
      expect(doc.length * doc.samples_per_pixel).toBeGreaterThanOrEqual(samples - doc.samples_per_pixel);
      expect((doc.length - 1) * doc.samples_per_pixel).toBeLessThan(samples + doc.samples_per_pixel);
      // Signed pairs: each minimum at or below its maximum, and noise goes both ways.
      for (let i = 0; i < doc.data.length; i += 2) expect(doc.data[i]!).toBeLessThanOrEqual(doc.data[i + 1]!);
      expect(Math.min(...doc.data)).toBeLessThan(0);
      const reference = astatsPeaksDb(join(dir, name));
      expect(reference).toHaveLength(doc.channels);
      const ours = jsonPeaksDb(doc);
      ours.forEach((db, c) => expect(Math.abs(db - reference[c]!), `channel ${c + 1}: ${db} vs astats ${reference[c]}`).toBeLessThanOrEqual(0.5));
      // The older mono form comes from the same buckets: its largest peak is the loudest channel's.
      const loudest = Math.max(...reference);
      expect(Math.abs(20 * Math.log10(Math.max(...waveform.peaks)) - loudest)).toBeLessThanOrEqual(0.5);
      expect(waveform.perSecond).toBeCloseTo(doc.sample_rate / doc.samples_per_pixel, 5);
      console.info(`${name}: ${doc.channels} ch, ${doc.length} points of ${doc.samples_per_pixel} samples; peaks ${ours.map((d) => d.toFixed(2))} dB vs astats ${reference}`);
    }, 120_000);
  }

  it("the channels are measured apart: the tone's channel is silent for its first 4 s, the noise's is not", async () => {
    const { doc } = await waveformOf("noise-tone.flac");
    const pointsPerSecond = doc.sample_rate / doc.samples_per_pixel;
    const at = (second: number, channel: number) => {
      const i = Math.floor(second * pointsPerSecond);
      return doc.data[(i * doc.channels + channel) * 2 + 1]!;
    };
    expect(at(2, 1)).toBe(0);
    expect(at(2, 0)).toBeGreaterThan(0.2 * 32767);
    expect(at(8, 1)).toBeGreaterThan(0.45 * 32767);
  }, 120_000);
});
