/** The preview routes: thumbnail, storyboard and waveform data of an inspected URL. */
import { createRoute, z } from "@hono/zod-openapi";
import { AudioWaveform } from "../../../shared/shapes/media-data.ts";
import { errorExamples as e } from "../openapi-examples.ts";
import { errorResponse, one, requestIdHeader, methodNotAllowed, internal } from "./responses.ts";

export const thumbnailRoute = createRoute({
  method: "get",
  path: "/api/v1/thumbnails/{file}",
  operationId: "getThumbnail",
  tags: ["Thumbnails"],
  summary: "A generated thumbnail (WebP)",
  request: {
    params: z.object({
      file: z.string().meta({
        description: "File name from preview.thumbnail.url (or preview.storyboard.url): `<resource key>-<revision>-[storyboard-]<W>x<H>.webp`. " +
          "The revision (16 hex digits) changes when the file at the origin does, so a changed file's previews have new URLs.",
      }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "WebP image, cacheable for a year (the name carries the file's revision: a changed file's thumbnail has another URL)",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "image/webp": { schema: z.string().meta({ format: "binary" }) } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such thumbnail (also an older revision of a file that changed: its previews are deleted)", { thumbnailNotFound: one("NOT_FOUND", e.thumbnailNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

export const storyboardRoute = createRoute({
  method: "get",
  path: "/api/v1/storyboards/{file}",
  operationId: "getStoryboardTrack",
  tags: ["Thumbnails"],
  summary: "A storyboard's WebVTT thumbnails track",
  request: {
    params: z.object({
      file: z.string().meta({ description: "File name from preview.storyboard.vtt: `<resource key>-<revision>-<W>x<H>.vtt` (the revision as for thumbnails)" }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "WebVTT: one cue per tile, each `interval` long, whose text is the sprite's URL with a #xywh=x,y,w,h fragment",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "text/vtt": { schema: z.string() } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such storyboard", { storyboardNotFound: one("NOT_FOUND", e.storyboardNotFound) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});

export const waveformDataRoute = createRoute({
  method: "get",
  path: "/api/v1/waveforms/{file}",
  operationId: "getWaveformData",
  tags: ["Thumbnails"],
  summary: "A waveform as BBC audiowaveform JSON",
  description: "The buckets of preview.waveform in the format peaks.js and wavesurfer.js load (version 2: signed 16-bit min/max " +
    "per channel at the file's own sample rate). peaks.js: `dataUri: { json: <url> }`, with zoomLevels at or above samples_per_pixel.",
  request: {
    params: z.object({
      file: z.string().meta({ description: "File name from preview.waveform.url: `<resource key>-<revision>-<channels>x<length>.json`" }),
    }),
    query: z.object({
      bits: z.enum(["8", "16"]).optional().meta({ description: "8 (the default: peaks.js reads only 8-bit data) or 16 (finer: wavesurfer.js and audiowaveform's own tools)" }),
    }),
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "An ETag from an earlier answer: 304 when unchanged" }),
    }),
  },
  responses: {
    200: {
      description: "audiowaveform JSON",
      headers: { ETag: { description: "Entity tag for If-None-Match", schema: { type: "string" as const } }, "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: AudioWaveform, examples: {
        mono: one("10 s of mono audio at 44.1 kHz, 100 points", {
          version: 2, channels: 1, sample_rate: 44_100, samples_per_pixel: 4410, bits: 8, length: 100,
          data: Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? -31 : 31)),
        }),
      } } },
    },
    304: { description: "Not modified: the If-None-Match ETag is current", headers: { ETag: { schema: { type: "string" as const } } } },
    404: errorResponse("NOT_FOUND: no such waveform", { waveformNotFound: one("NOT_FOUND", { status: "error", error: { code: "NOT_FOUND", message: "No such waveform." } }) }),
    405: methodNotAllowed("GET, HEAD"),
    500: internal,
  },
});
