import { z } from "zod";

// Schemas for streaming manifests (HLS, DASH) and web pages. Kept apart from data.ts so that file
// only has to import these namespaces; this file imports nothing from it (no import cycle).

/** One rendition of an adaptive stream, as the manifest declares it (no segment is read at the edge). */
export const StreamingVariant = z.object({
  bandwidth: z.number().int().nonnegative().meta({ description: "Peak bits per second (HLS BANDWIDTH, DASH @bandwidth)" }),
  averageBandwidth: z.number().int().nonnegative().optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  frameRate: z.number().positive().optional(),
  codecs: z.string().optional().meta({ description: "RFC 6381 codec list, e.g. avc1.64001f,mp4a.40.2" }),
  videoRange: z.string().optional().meta({ description: "HLS VIDEO-RANGE: SDR, PQ or HLG" }),
}).meta({ id: "StreamingVariant" });
export type StreamingVariant = z.infer<typeof StreamingVariant>;

export const StreamingAudio = z.object({
  language: z.string().optional(),
  name: z.string().optional(),
  codecs: z.string().optional(),
  default: z.boolean().optional(),
}).meta({ id: "StreamingAudio" });
export type StreamingAudio = z.infer<typeof StreamingAudio>;

export const StreamingSubtitle = z.object({
  language: z.string().optional(),
  name: z.string().optional(),
  forced: z.boolean().optional(),
}).meta({ id: "StreamingSubtitle" });
export type StreamingSubtitle = z.infer<typeof StreamingSubtitle>;

/** `data.metadata.streaming`: what an HLS playlist or a DASH manifest declares. */
export const Streaming = z
  .object({
    protocol: z.enum(["hls", "dash"]),
    live: z.boolean().meta({ description: "HLS without EXT-X-ENDLIST, DASH type=dynamic" }),
    encrypted: z.boolean(),
    encryption: z.string().optional().meta({ description: "HLS METHOD (AES-128, SAMPLE-AES, ...) or DASH ContentProtection scheme" }),
    lowLatency: z.boolean().meta({ description: "LL-HLS parts / server control, or DASH low-latency service description" }),
    variants: z.array(StreamingVariant).meta({ description: "Ordered by bandwidth, lowest first" }),
    audio: z.array(StreamingAudio),
    subtitles: z.array(StreamingSubtitle),
  })
  .meta({ id: "Streaming", description: "Adaptive streaming facts read from the manifest (HLS or DASH)" });
export type Streaming = z.infer<typeof Streaming>;

/**
 * What the runner reads for a stream's previews (record-internal, planned by the Worker from the manifest): one
 * early segment of the lowest-bandwidth video variant. HLS names its media playlist (keys and init sections come
 * with it); DASH names the init and media segment URLs.
 */
/** Only http(s) URLs are ever planned (the runner checks each address again when it connects). */
const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/i, "only http: and https: URLs");

export const StreamPreviewPlan = z.object({
  protocol: z.enum(["hls", "dash"]),
  playlistUrl: httpUrl.optional(),
  segmentUrl: httpUrl,
  initUrl: httpUrl.optional(),
  encryption: z.string().optional(),
});
export type StreamPreviewPlan = z.infer<typeof StreamPreviewPlan>;

/** `playback.requiresMse`: browsers other than Safari need Media Source Extensions (hls.js, dash.js) to play it. */
export const RequiresMse = z.boolean().meta({ description: "True for HLS and DASH: a player library built on Media Source Extensions is needed outside Safari" });

/** Duration in the same shape as metadata durations (seconds and m:ss). */
const MediaDuration = z.object({ seconds: z.number(), formatted: z.string() });

/** The media file (or manifest) a page names, inspected as its own resource. */
export const PageMedia = z
  .object({
    url: z.string().meta({ description: "Absolute http(s) URL named by og:video, og:audio, twitter:player:stream or JSON-LD contentUrl" }),
    mime: z.string(),
    semanticType: z.enum(["video", "audio", "image"]),
    duration: MediaDuration.optional(),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    thumbnail: z.object({ url: z.string(), dimensions: z.string().regex(/^\d+x\d+$/).optional() }).optional(),
  })
  .meta({ id: "PageMedia", description: "The media behind the page, inspected with the same checks and cache as any URL" });
export type PageMedia = z.infer<typeof PageMedia>;

/** A page naming a known provider URL (e.g. a YouTube URL in og:video) is reported as that provider's embed. */
export const PageEmbed = z.object({
  provider: z.string(),
  url: z.string().meta({ description: "The provider URL the page names" }),
  embedUrl: z.string(),
}).meta({ id: "PageEmbed" });
export type PageEmbed = z.infer<typeof PageEmbed>;

/** `data.page`: facts of a web page's <head>, from OpenGraph, Twitter cards, JSON-LD and plain HTML, in that order of trust. */
export const Page = z
  .object({
    title: z.string().optional(),
    description: z.string().optional(),
    siteName: z.string().optional(),
    image: z.string().optional().meta({ description: "Absolute URL of the page's preview image (og:image first)" }),
    imageWidth: z.number().int().positive().optional().meta({ description: "og:image width, declared or measured" }),
    imageHeight: z.number().int().positive().optional(),
    favicon: z.string().optional().meta({ description: "Absolute URL" }),
    author: z.string().optional(),
    publishedAt: z.string().optional().meta({ description: "ISO 8601 date or date-time as the page states it" }),
    canonicalUrl: z.string().optional(),
    lang: z.string().optional(),
    media: PageMedia.nullable().optional().meta({ description: "null while the named media is being inspected; omitted when the page names none" }),
    embed: PageEmbed.optional(),
  })
  .meta({ id: "Page", description: "Web page facts (semantic.kind webpage); selectable with fields=page" });
export type Page = z.infer<typeof Page>;
