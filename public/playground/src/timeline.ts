/**
 * The opt-in timeline previews: a hover scrubber over the video from its storyboard sprite (the tile under
 * the pointer, as the WebVTT track maps it), and the waveform under the audio player, drawn on a canvas.
 */
import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import { h, isSameOrigin, safeUrl } from "./dom.ts";

type Storyboard = NonNullable<NonNullable<InspectData["preview"]>["storyboard"]>;
type Waveform = NonNullable<NonNullable<InspectData["preview"]>["waveform"]>;
type Loudness = NonNullable<NonNullable<NonNullable<InspectData["metadata"]>["audio"]>["loudness"]>;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/** The strip under the video: hovering shows that moment's tile above the pointer, a click seeks there. */
export function storyboardScrubber(board: Storyboard, video: HTMLVideoElement, durationSeconds: number | undefined): HTMLElement | null {
  const sprite = safeUrl(board.url);
  // Only the service's own sprite: the playground requests nothing from elsewhere.
  if (!sprite || !isSameOrigin(sprite)) return null;
  const total = durationSeconds && durationSeconds > 0 ? durationSeconds : board.tiles * board.interval;
  const tile = h("div", { class: "scrub-tile", "data-role": "storyboard-tile" });
  tile.style.width = `${board.tileWidth}px`;
  tile.style.height = `${board.tileHeight}px`;
  tile.style.backgroundImage = `url("${sprite}")`;
  const label = h("span", { class: "scrub-time" });
  const tip = h("div", { class: "scrub-tip", hidden: true }, tile, label);
  const strip = h("div", { class: "scrub", "data-role": "storyboard", title: "Storyboard: hover to preview, click to seek" }, tip);
  const show = (fraction: number) => {
    const time = fraction * total;
    const index = Math.min(board.tiles - 1, Math.floor(time / board.interval));
    const x = (index % board.columns) * board.tileWidth;
    const y = Math.floor(index / board.columns) * board.tileHeight;
    tile.style.backgroundPosition = `-${x}px -${y}px`;
    label.textContent = clock(time);
    tip.hidden = false;
    tip.dataset.index = String(index);
    const width = strip.clientWidth;
    tip.style.left = `${Math.min(Math.max(0, fraction * width - board.tileWidth / 2), Math.max(0, width - board.tileWidth))}px`;
    return time;
  };
  const fractionAt = (event: MouseEvent) => {
    const rect = strip.getBoundingClientRect();
    return clamp01((event.clientX - rect.left) / rect.width);
  };
  strip.addEventListener("mousemove", (event) => void show(fractionAt(event)));
  strip.addEventListener("mouseleave", () => (tip.hidden = true));
  strip.addEventListener("click", (event) => {
    video.currentTime = show(fractionAt(event));
  });
  return strip;
}

/** Peaks as mirrored bars under the audio player, the played part darker; loudness figures beside it. */
export function waveformView(waveform: Waveform, audio: HTMLAudioElement, loudness: Loudness | undefined): HTMLElement {
  const canvas = h("canvas", { class: "waveform", "data-role": "waveform", width: 800, height: 96 });
  const draw = () => {
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    const { width, height } = canvas;
    ctx.clearRect(0, 0, width, height);
    const played = audio.duration > 0 ? audio.currentTime / audio.duration : 0;
    const step = width / waveform.peaks.length;
    waveform.peaks.forEach((peak, i) => {
      const bar = Math.max(1, clamp01(peak) * (height - 4));
      ctx.fillStyle = i / waveform.peaks.length < played ? "#1d4ed8" : "#93a3bf";
      ctx.fillRect(i * step, (height - bar) / 2, Math.max(1, step - 1), bar);
    });
    canvas.dataset.drawn = "true";
  };
  draw();
  audio.addEventListener("timeupdate", draw);
  canvas.addEventListener("click", (event) => {
    const rect = canvas.getBoundingClientRect();
    if (audio.duration > 0) audio.currentTime = clamp01((event.clientX - rect.left) / rect.width) * audio.duration;
  });
  const figures = loudness
    ? `${loudness.integratedLufs.toFixed(1)} LUFS integrated · LRA ${loudness.rangeLu.toFixed(1)} LU · true peak ${loudness.truePeakDbtp.toFixed(1)} dBTP`
    : "";
  return h("div", { class: "waveform-wrap" }, canvas, figures ? h("p", { class: "muted waveform-loudness", "data-role": "loudness" }, figures) : null);
}
