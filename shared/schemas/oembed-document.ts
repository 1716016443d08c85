import { z } from "zod";
import { InspectBody } from "./inspect.ts";

/**
 * oEmbed 1.0 (https://oembed.com/, section 2.3) as this service answers it for any media URL: `GET /oembed` and
 * the share page `GET /v` that advertises it. The document shapes follow section 2.3.4 field by field.
 */

/** Largest maxwidth/maxheight accepted: far above any real player, small enough to stay an exact integer. */
export const oembedMaxDimension = 16_384;
/** Longest `format` value read (it is only ever compared with "json"). */
const maxFormatLength = 16;

const dimension = (name: string) =>
  z.coerce
    .number({ error: () => `${name} must be a positive integer` })
    .int(`${name} must be a positive integer`)
    .min(1, `${name} must be a positive integer`)
    .max(oembedMaxDimension, `${name} must be at most ${oembedMaxDimension}`)
    .optional()
    .meta({ description: `Largest ${name.slice(3)} the consumer can show (pixels); width and height are scaled down to fit, keeping the aspect ratio, never up` });

export const OembedQuery = z.object({
  url: InspectBody.shape.url,
  maxwidth: dimension("maxwidth"),
  maxheight: dimension("maxheight"),
  format: z
    .string()
    .max(maxFormatLength, `format must be at most ${maxFormatLength} characters`)
    .optional()
    .meta({ description: "json (the default). Any other value (xml included) is 501 Not Implemented, as oEmbed 2.3.3 asks" }),
});
export type OembedQuery = z.infer<typeof OembedQuery>;

export const SharePageQuery = z.object({ url: InspectBody.shape.url });

const pixels = z.number().int().positive();

/** Section 2.3.4: fields every type may carry. thumbnail_url, _width and _height are present together or not at all. */
const common = {
  version: z.literal("1.0"),
  title: z.string().optional().meta({ description: "The media's title (from the origin: untrusted text, escape it)" }),
  author_name: z.string().optional(),
  author_url: z.string().optional(),
  provider_name: z.string(),
  provider_url: z.string(),
  cache_age: z.number().int().nonnegative().meta({ description: "Seconds the consumer may keep this document" }),
  thumbnail_url: z.string().optional(),
  thumbnail_width: pixels.optional(),
  thumbnail_height: pixels.optional(),
  share_url: z.string().optional().meta({
    description: "An extension field: the service's share page of the URL (`/v/<id>`), which unfurlers read (OpenGraph, player card)",
  }),
};

export const OembedVideo = z.object({
  ...common,
  type: z.literal("video"),
  html: z.string().meta({ description: "The service's player: a <video> or <audio> element (an <iframe> for a recognised provider)" }),
  width: pixels,
  height: pixels,
}).meta({ id: "OembedVideo" });

export const OembedPhoto = z.object({
  ...common,
  type: z.literal("photo"),
  url: z.string().meta({ description: "The image itself, for an <img> element" }),
  width: pixels,
  height: pixels,
}).meta({ id: "OembedPhoto" });

export const OembedDocument = z
  .discriminatedUnion("type", [OembedVideo, OembedPhoto])
  .refine(
    (d) => [d.thumbnail_url, d.thumbnail_width, d.thumbnail_height].every((v) => v === undefined) ||
      [d.thumbnail_url, d.thumbnail_width, d.thumbnail_height].every((v) => v !== undefined),
    "thumbnail_url, thumbnail_width and thumbnail_height are present together",
  )
  .meta({ id: "OembedDocument", description: "oEmbed 1.0 document (oembed.com section 2.3)" });
export type OembedDocument = z.infer<typeof OembedDocument>;
