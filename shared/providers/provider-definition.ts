import type { IframePolicy, ProviderCapabilities, SemanticEmbedType } from "./provider-match.ts";

/** Options that depend on the embedding page rather than on the URL. */
export interface DetectOptions {
  /**
   * Hostnames of the pages that will embed the player. Twitch refuses to play unless every embedding
   * host is listed as `parent=`; when this is empty the Twitch embedUrl has no `parent` and the caller
   * must append `&parent=<host>` itself (capabilities.requiresParentHost says so).
   */
  parentHosts?: readonly string[];
}

/** What a provider's URL matcher extracts from one URL; the registry adds the provider-wide fields. */
export interface UrlMatch {
  id: string;
  canonicalUrl: string;
  embedUrl: string;
  /** Defaults to the provider's confidence. */
  confidence?: number;
  semanticType?: SemanticEmbedType;
  thumbnailUrl?: string;
  /** URL to hand to the oEmbed endpoint; defaults to canonicalUrl. */
  oembedUrl?: string;
  /** Size overrides (e.g. Spotify's compact track player). */
  iframe?: Partial<IframePolicy>;
  startSeconds?: number;
  playlistId?: string;
}

/**
 * One hosted-media provider. `hosts` are matched exactly against the WHATWG-parsed hostname;
 * `subdomainsOf` admits exactly one extra DNS label (Wistia account subdomains), never a suffix match.
 */
export interface ProviderDefinition {
  name: string;
  hosts: readonly string[];
  subdomainsOf?: readonly string[];
  /** Non-http scheme the provider owns (e.g. `spotify:` URIs), matched before host lookup. */
  uriScheme?: string;
  confidence: number;
  semanticType: SemanticEmbedType;
  oembedEndpoint?: string;
  iframe: IframePolicy;
  capabilities: ProviderCapabilities;
  match(url: URL, options: DetectOptions): UrlMatch | null;
}
