import type { Context } from "hono";
import { AudioWaveform } from "../../shared/shapes/media-data.ts";
import { readPreview } from "../previews/preview-store.ts";
import type { AppEnv } from "./app-env.ts";
import { errorResponse } from "./error-handling.ts";
import { etagMatches } from "./thumbnail-handler.ts";

/** Named by resource, revision and size like the thumbnails: a changed file gets a new name. */
const cacheControl = "public, max-age=31536000, immutable";

/**
 * GET /api/v1/waveforms/{file}: a waveform's BBC audiowaveform JSON from R2. Stored at 16 bits; answered at 8 unless
 * `bits=16` is asked for, since peaks.js refuses 16-bit data (wavesurfer.js reads either). Each form has its own ETag.
 */
export async function serveWaveformData(c: Context<AppEnv>, file: string, bits: 8 | 16): Promise<Response> {
  const object = await readPreview(c.env, "waveform", file);
  if (!object) return errorResponse(c, 404, "NOT_FOUND", "No such waveform.");
  const etag = bits === 16 ? object.httpEtag : `${object.httpEtag.slice(0, -1)}-8bit"`;
  const headers = { etag, "cache-control": cacheControl };
  if (etagMatches(c.req.header("if-none-match"), etag)) {
    await object.body.cancel();
    return c.body(null, 304, headers);
  }
  if (bits === 16) return c.body(object.body, 200, { ...headers, "content-type": "application/json" });
  const stored = AudioWaveform.parse(await object.json());
  return c.body(JSON.stringify(toEightBits(stored)), 200, { ...headers, "content-type": "application/json" });
}

/** 16-bit pairs to 8-bit ones, rounded outwards (a peak is never drawn lower than it is). */
export function toEightBits(doc: AudioWaveform): AudioWaveform {
  if (doc.bits === 8) return doc;
  const scale = 127 / 32767;
  const data = doc.data.map((v, i) => Math.max(-128, Math.min(127, i % 2 === 0 ? Math.floor(v * scale) : Math.ceil(v * scale))));
  return { ...doc, bits: 8, data };
}
