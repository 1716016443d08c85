import type { ProviderMatch } from "./provider-match.ts";

const htmlEntities: Readonly<Record<string, string>> = {
  "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
};

/** Escapes a value for a double-quoted HTML attribute (and for text content). */
export function escapeHtmlAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => htmlEntities[c]!);
}

export interface IframeOptions {
  /** Accessible name of the frame; defaults to e.g. "youtube video player". */
  title?: string;
}

/**
 * Attributes of the provider iframe, in output order; `true` marks a boolean attribute.
 * Also the source of the embed profile's `render.attributes`.
 */
export function buildIframeAttributes(match: ProviderMatch, opts: IframeOptions = {}): Record<string, string | true> {
  const kind = match.semanticType === "embedded-audio" ? "audio" : "video";
  const attributes: Record<string, string | true> = {
    src: match.embedUrl,
    title: opts.title ?? `${match.name} ${kind} player`,
    width: String(match.iframe.width),
    height: String(match.iframe.height),
    allow: match.iframe.allow,
  };
  if (match.iframe.sandbox) attributes.sandbox = match.iframe.sandbox;
  if (match.iframe.referrerPolicy) attributes.referrerpolicy = match.iframe.referrerPolicy;
  attributes.loading = "lazy";
  // Always granted: it only permits the player's own fullscreen button (capabilities.fullscreen says if it has one).
  attributes.allowfullscreen = true;
  return attributes;
}

/** `<iframe ...></iframe>` for the match, every attribute value HTML-escaped. */
export function buildIframeHtml(match: ProviderMatch, opts: IframeOptions = {}): string {
  const parts = Object.entries(buildIframeAttributes(match, opts)).map(([name, value]) =>
    value === true ? name : `${name}="${escapeHtmlAttribute(value)}"`,
  );
  return `<iframe ${parts.join(" ")}></iframe>`;
}
