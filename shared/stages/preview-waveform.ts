import { defineStage } from "./definition.ts";

/** Peaks of the whole audio and its EBU R128 loudness (metadata.audio.loudness), on request. */
export const previewWaveform = defineStage({
  name: "preview:waveform",
  categories: ["audio"],
  engines: ["runner"],
  group: "preview",
  runnerStage: "waveform",
  write: (output) => (output.waveform
    ? { waveform: output.waveform, ...(output.loudness ? { loudness: output.loudness } : {}) }
    : undefined),
  fills: ["preview.waveform", "metadata.audio.loudness"],
  show: (results) => ({ waveform: results.waveform, "audio.loudness": results.loudness }),
  reservedUntilAsked: true,
  optIn: "waveform",
});
