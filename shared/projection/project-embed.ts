import type { EmbedResponse } from "../schemas/inspect.ts";
import type { ResourceRecord } from "../schemas/record.ts";
import { framingPolicy } from "./framing.ts";
import { renderElement, toHtml } from "./html-tags.ts";
import { stageView } from "./processing.ts";

/**
 * The `embed` profile: only what a page needs to render the resource, and how sure we are.
 * Providers: verified by the registry, and by the network when oEmbed answered. Direct media: rendered
 * natively; framing headers say whether the file's page could be iframed instead.
 */
export function projectEmbed(record: ResourceRecord, withHtml: boolean, baseUrl?: string): EmbedResponse {
  const response = projectEmbedData(record, baseUrl);
  if (!withHtml) return response;
  // The html is the element `render` describes (a framable page is a sandboxed iframe, not the link).
  const { render } = response.data;
  const title = record.results.title ?? record.probe.title;
  const html = toHtml({ tag: render.tag, attributes: render.attributes }, render.tag === "a" ? (title ?? record.probe.finalUrl) : "");
  return { ...response, data: { ...response.data, html } };
}

function projectEmbedData(record: ResourceRecord, baseUrl: string | undefined): EmbedResponse {
  const title = record.results.title ?? record.probe.title;
  const element = renderElement(record, title, baseUrl);
  if (record.provider) {
    const oembed = stageView(record, "oembed");
    const networkVerified = oembed === "done" && record.results.oembed !== undefined;
    // A discovered provider is the page's own claim: never "verified" or "safe".
    const registry = record.provider.detectionMethod === "url-parser";
    const verified = networkVerified && registry;
    const blocked = record.results.embeddable === false;
    const level = blocked ? "low" : verified ? "verified" : "likely";
    const score = blocked ? 0.1 : networkVerified ? Math.min(1, record.provider.confidence) : Math.min(0.8, record.provider.confidence);
    return {
      success: true,
      profile: "embed",
      data: {
        embedType: record.provider.semanticType,
        mime: "text/html",
        provider: record.provider.name,
        renderability: {
          native: false,
          iframe: { supported: blocked ? "blocked" : verified ? "verified" : "likely", confidence: score },
          embeddable: blocked
            ? { status: "not-embeddable", reason: record.results.embeddableReason ?? "The provider refuses to embed this media." }
            : { status: verified ? "verified" : "likely" },
        },
        verification: {
          providerVerified: verified,
          registryVerified: registry,
          networkVerified,
          method: record.provider.detectionMethod === "url-parser" ? "registry" : "oembed-discovery",
        },
        render: {
          strategy: "iframe",
          safeEmbed: !blocked && registry,
          renderConfidence: { level, score },
          tag: "iframe",
          attributes: element.attributes,
        },
        providerCapabilities: record.provider.capabilities,
      },
    };
  }
  const framing = framingPolicy(record.probe.headers);
  const direct = record.category === "image" || record.category === "video" || record.category === "audio";
  return {
    success: true,
    profile: "embed",
    data: {
      embedType: direct ? record.category : "webpage",
      mime: record.probe.mime,
      renderability: {
        native: direct,
        iframe: { supported: framing.allowed ? "likely" : "blocked", confidence: framing.allowed ? 0.6 : 0.95 },
        embeddable: direct ? { status: "verified" } : framing.allowed ? { status: "likely" } : { status: "not-embeddable", reason: "The origin forbids framing." },
        framing,
      },
      verification: { providerVerified: false, registryVerified: false, networkVerified: true, method: "network" },
      render: direct
        ? { strategy: "native", safeEmbed: true, renderConfidence: { level: "verified", score: 0.95 }, tag: element.tag, attributes: element.attributes }
        : framing.allowed
          ? { strategy: "iframe", safeEmbed: false, renderConfidence: { level: "low", score: 0.4 }, tag: "iframe", attributes: { src: record.probe.finalUrl, sandbox: "", allowfullscreen: false } }
          : { strategy: "link", safeEmbed: true, renderConfidence: { level: "verified", score: 0.9 }, tag: "a", attributes: element.attributes },
    },
  };
}
