import { buildIframeAttributes, escapeHtmlAttribute } from "../providers/index.ts";
import type { ProviderMatch } from "../providers/index.ts";
import type { ResourceRecord } from "../schemas/record.ts";

type Attributes = Record<string, string | number | boolean>;

/**
 * Tag name and attributes of the element that renders the resource (also the embed profile's `render`).
 * `baseUrl` makes the service's own URLs (the generated poster) absolute: the HTML is pasted into other sites.
 */
export function renderElement(record: ResourceRecord, title?: string, baseUrl?: string): { tag: "iframe" | "video" | "audio" | "img" | "a"; attributes: Attributes } {
  if (record.provider) {
    const match = { ...record.provider, detectionMethod: "url-parser" } as ProviderMatch;
    return { tag: "iframe", attributes: buildIframeAttributes(match, title ? { title } : {}) };
  }
  const src = record.probe.finalUrl;
  const label = title ?? record.probe.filename ?? "";
  switch (record.category) {
    case "image": {
      const image = record.results.image;
      return {
        tag: "img",
        attributes: { src, alt: label, ...(image?.width ? { width: image.width, height: image.height ?? 0 } : {}), loading: "lazy", decoding: "async" },
      };
    }
    case "video":
      return { tag: "video", attributes: { src, controls: true, preload: "metadata", playsinline: true, allowfullscreen: true, ...thumbPoster(record, baseUrl) } };
    case "audio":
      return { tag: "audio", attributes: { src, controls: true, preload: "metadata" } };
    default:
      return { tag: "a", attributes: { href: src, rel: "noopener noreferrer nofollow", target: "_blank" } };
  }
}

function thumbPoster(record: ResourceRecord, baseUrl: string | undefined): Attributes {
  const url = record.results.thumbnail?.url;
  if (!url) return {};
  return { poster: baseUrl ? new URL(url, baseUrl).href : url };
}

/** Serialises an element with every attribute value HTML-escaped. */
export function toHtml(element: { tag: string; attributes: Attributes }, text = ""): string {
  const attrs = Object.entries(element.attributes)
    .filter(([, v]) => v !== false)
    .map(([name, v]) => (v === true ? name : `${name}="${escapeHtmlAttribute(String(v))}"`))
    .join(" ");
  const open = `<${element.tag}${attrs ? " " + attrs : ""}>`;
  if (element.tag === "img") return open;
  return `${open}${escapeHtmlAttribute(text)}</${element.tag}>`;
}
