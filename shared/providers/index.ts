import { parseCandidateUrl } from "./parse-candidate-url.ts";
import type { DetectOptions } from "./provider-definition.ts";
import type { ProviderMatch } from "./provider-match.ts";
import { definitionFor, providerDefinitions } from "./registry.ts";

export { buildIframeAttributes, buildIframeHtml, escapeHtmlAttribute, type IframeOptions } from "./embed-html.ts";
export { maxUrlLength } from "./parse-candidate-url.ts";
export type { DetectOptions, ProviderDefinition, UrlMatch } from "./provider-definition.ts";
export { IframePolicy, ProviderCapabilities, ProviderMatch, SemanticEmbedType } from "./provider-match.ts";
export { providerDefinitions } from "./registry.ts";
export { maxStartSeconds, parseTimestamp } from "./timestamp.ts";

/** Lower-case names of every registered provider, in registry order. */
export const providerNames: readonly string[] = providerDefinitions.map((d) => d.name);

/**
 * Recognises a hosted-media URL by its shape alone (no network): the host picks at most one provider
 * and that provider's matcher must find a well-formed media id. Returns null for anything else,
 * including look-alike hosts, userinfo tricks, odd ports and ids with invalid characters.
 */
export function detectProvider(input: string | URL, options: DetectOptions = {}): ProviderMatch | null {
  const url = parseCandidateUrl(input);
  if (!url) return null;
  const definition = definitionFor(url);
  const found = definition?.match(url, options);
  if (!definition || !found) return null;
  return {
    name: definition.name,
    confidence: found.confidence ?? definition.confidence,
    detectionMethod: "url-parser",
    id: found.id,
    canonicalUrl: found.canonicalUrl,
    embedUrl: found.embedUrl,
    semanticType: found.semanticType ?? definition.semanticType,
    ...(found.thumbnailUrl !== undefined && { thumbnailUrl: found.thumbnailUrl }),
    ...(definition.oembedEndpoint !== undefined && {
      oembed: { endpoint: definition.oembedEndpoint, url: found.oembedUrl ?? found.canonicalUrl },
    }),
    iframe: { ...definition.iframe, ...found.iframe },
    capabilities: { ...definition.capabilities },
    ...(found.startSeconds !== undefined && { startSeconds: found.startSeconds }),
    ...(found.playlistId !== undefined && { playlistId: found.playlistId }),
  };
}
