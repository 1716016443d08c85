import { z } from "zod";

/** Iframe policy a provider's player needs: the `allow` feature list, sandbox tokens and default size. */
export const IframePolicy = z.object({
  allow: z.string(),
  sandbox: z.string().optional(),
  referrerPolicy: z.string().optional(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
export type IframePolicy = z.infer<typeof IframePolicy>;

/** What the provider's embedded player can do; reported as `providerCapabilities` in the embed profile. */
export const ProviderCapabilities = z.object({
  autoplay: z.boolean(),
  timestamps: z.boolean(),
  playlists: z.boolean(),
  responsive: z.boolean(),
  fullscreen: z.boolean(),
  /** The embed URL must name the embedding page's host (Twitch `parent=`), see DetectOptions.parentHosts. */
  requiresParentHost: z.boolean(),
});
export type ProviderCapabilities = z.infer<typeof ProviderCapabilities>;

export const SemanticEmbedType = z.enum(["embedded-video", "embedded-audio"]);
export type SemanticEmbedType = z.infer<typeof SemanticEmbedType>;

/** A hosted-media URL recognised by its pattern alone, with what is needed to embed it. */
export const ProviderMatch = z.object({
  name: z.string(),
  confidence: z.number().min(0).max(1),
  detectionMethod: z.literal("url-parser"),
  /** Provider's media id (for SoundCloud, which has no id in its URLs, the `user/track` permalink path). */
  id: z.string(),
  /** Identifies the media: tracking params and timestamps dropped, playlist context kept. */
  canonicalUrl: z.url(),
  /** Player URL; carries the start time and playlist when the provider supports them. */
  embedUrl: z.url(),
  semanticType: SemanticEmbedType,
  thumbnailUrl: z.url().optional(),
  /** Provider's default oEmbed endpoint and the URL to pass as `url=` (timestamp-free, so cacheable per media). */
  oembed: z.object({ endpoint: z.url(), url: z.url() }).optional(),
  iframe: IframePolicy,
  capabilities: ProviderCapabilities,
  /** Start position found in the URL, in whole seconds; already applied to embedUrl when supported. */
  startSeconds: z.number().int().positive().optional(),
  /** Playlist / set context found in the URL. */
  playlistId: z.string().optional(),
});
export type ProviderMatch = z.infer<typeof ProviderMatch>;
