import type { Context } from "hono";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { encodePng } from "../encoding/png.ts";
import type { AppEnv } from "./app-env.ts";
import { clientAddressOf } from "./rate-limit.ts";
import { inspectForSharing } from "./oembed-inspection.ts";
import { annotate } from "./request-log.ts";
import { hostOf } from "./oembed-handler.ts";

/**
 * GET /v/{id}/card.png: the share page's og:image for media with no picture of its own (audio): a 1200x630 card
 * (the size unfurlers show large) in a colour of the URL's own, with the waveform's peaks drawn across it once the
 * resource has one (`expand=waveform`), else a flat band. Drawn and encoded here: no font, no external asset.
 */

export const cardSize = { width: 1200, height: 630 };
/** Seconds a card made before the waveform existed may be kept: it is drawn again with the peaks soon. */
const pendingCardSeconds = 300;

export async function answerShareCard(c: Context<AppEnv>, url: string, baseUrl: string): Promise<Response> {
  annotate(c, { profile: "share-card", targetHost: hostOf(url) });
  const shared = await inspectForSharing(c.env, url, baseUrl, { requestId: c.get("requestId"), clientAddress: clientAddressOf(c.req.raw, c.env) });
  const peaks = peaksOf(shared.outcome.record);
  const png = await encodePng(cardSize.width, cardSize.height, drawCard(url, peaks));
  const maxAge = peaks && shared.complete ? shared.cacheAge : Math.min(shared.cacheAge, pendingCardSeconds);
  return c.body(png as Uint8Array<ArrayBuffer>, 200, {
    "content-type": "image/png",
    "cache-control": maxAge > 0 ? `public, max-age=${maxAge}` : "no-store",
  });
}

function peaksOf(record: ResourceRecord): readonly number[] | undefined {
  const peaks = record.results.waveform?.peaks;
  return peaks && peaks.length > 0 ? peaks : undefined;
}

/** A hue from the URL (FNV-1a), so different files get different cards. */
function hueOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 360;
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** The card's pixels: a dark background of the URL's hue, and bars (the peaks, or a flat band) in a light tone. */
export function drawCard(url: string, peaks: readonly number[] | undefined): Uint8Array {
  const { width, height } = cardSize;
  const hue = hueOf(url);
  const background = hslToRgb(hue, 0.45, 0.18);
  const bar = hslToRgb(hue, 0.7, 0.7);
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb.set(background, i * 3);
  const margin = 80;
  const barWidth = 6;
  const gap = 4;
  const bars = Math.floor((width - 2 * margin) / (barWidth + gap));
  const middle = height / 2;
  const maxHalf = height / 2 - margin;
  for (let b = 0; b < bars; b++) {
    const level = peaks
      ? Math.max(...peaks.slice(Math.floor((b * peaks.length) / bars), Math.max(Math.floor(((b + 1) * peaks.length) / bars), Math.floor((b * peaks.length) / bars) + 1)))
      : 0.25;
    const half = Math.max(2, Math.round(Math.min(1, level) * maxHalf));
    const x0 = margin + b * (barWidth + gap);
    for (let y = Math.round(middle - half); y < Math.round(middle + half); y++) {
      for (let x = x0; x < x0 + barWidth; x++) rgb.set(bar, (y * width + x) * 3);
    }
  }
  return rgb;
}
