/** Builds the result card and panels from API answers. Everything from an answer goes in as text. */
import { decode as decodeBlurhash, isBlurhashValid } from "blurhash";
import type { EmbedResponse, InspectResponse } from "../../../shared/schemas/inspect.ts";
import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import { append, byId, clear, h, hexColor, isSameOrigin, safeUrl } from "./dom.ts";
import { verdicts } from "./verdicts.ts";
import { tracksPanel } from "./tracks.ts";
import { storyboardScrubber, waveformView } from "./timeline.ts";
import { provenancePanel } from "./provenance.ts";

type Diagnostics = NonNullable<InspectData["diagnostics"]>;
type EmbedData = EmbedResponse["data"];

/** Size the blurhash is decoded at: the canvas is scaled up by CSS, a blur needs no more pixels. */
const placeholderPx = 32;

export interface CardInput {
  envelope: InspectResponse;
  embed?: EmbedData;
  diagnostics?: Diagnostics;
}

export function renderCard({ envelope, embed }: CardInput): void {
  const card = byId("card");
  const data = envelope.data;
  const title = data.semantic?.title ?? data.metadata?.filename ?? data.identity?.finalUrl ?? "Result";
  clear(card);
  card.hidden = false;
  append(card,
    h("h2", { id: "card-title", class: "card-title" }, title),
    h("p", { class: "card-sub" }, [data.provider?.name, data.semantic?.semanticType ?? data.semantic?.kind, data.identity?.mime]
      .filter(Boolean).join(" · ")),
    section("Preview", previewNote(data), visual(data), palette(data)),
    section("Player", `playback.component: ${data.playback?.component ?? "none"}`, player(data, embed, title)),
    data.playback?.compatibility ? section("Will it play here?", "playback.codecs · playback.compatibility", verdicts(data.playback)) : null,
    section("Tracks", "metadata.tracks · chapters · protection · accessibility", tracksPanel(data)),
    section("Facts", null, facts(data)),
    section("Provenance and rights", "provenance · metadata.capture · metadata.rights", provenancePanel(data)),
    data.network ? section("Origin response headers", "debug=true, expand=rawHeaders", headerTable(data.network.headers)) : null,
  );
}

function headerTable(headers: Record<string, string>): HTMLElement {
  const dl = h("dl", { class: "headers", id: "origin-headers" });
  for (const [name, value] of Object.entries(headers)) dl.append(h("div", { class: "header" }, h("dt", {}, name), h("dd", {}, value)));
  return dl;
}

export function renderEmbedCard(body: EmbedResponse): void {
  const card = byId("card");
  const data = body.data;
  clear(card);
  card.hidden = false;
  const rows: [string, unknown][] = [
    ["Embed type", data.embedType], ["MIME", data.mime], ["Provider", data.provider],
    ["Render strategy", data.render.strategy], ["Safe to embed", data.render.safeEmbed],
    ["Render confidence", `${data.render.renderConfidence.level} (${data.render.renderConfidence.score})`],
    ["Iframe support", `${data.renderability.iframe.supported} (${data.renderability.iframe.confidence})`],
    ["Embeddable", data.renderability.embeddable.status + (data.renderability.embeddable.reason ? `: ${data.renderability.embeddable.reason}` : "")],
    ["Verification", data.verification.method],
  ];
  append(card,
    h("h2", { id: "card-title", class: "card-title" }, data.provider ? `${data.provider} embed` : "Embed"),
    h("p", { class: "card-sub" }, `profile=embed · ${data.embedType}`),
    section("Player", `render.tag: ${data.render.tag}`, playerFromEmbed(data, data.provider ?? "embed")),
    section("Facts", null, factTable(rows)),
  );
}

function previewNote(data: InspectData): string {
  if (data.playback?.component === "audio") return "audio has no visual preview";
  if (data.provider) return "the provider's own thumbnail";
  return "blurhash placeholder, the generated thumbnail fading in, palette";
}

/** A titled part of the card; left out when it has nothing to show. */
function section(title: string, note: string | null, ...content: (HTMLElement | null)[]): HTMLElement | null {
  if (content.every((c) => c === null)) return null;
  return h("section", { class: "card-part" }, h("h3", {}, title, note ? h("span", { class: "muted part-note" }, ` · ${note}`) : null), ...content);
}

function visual(data: InspectData): HTMLElement | null {
  const preview = data.preview;
  if (data.playback?.component === "audio" || data.semantic?.semanticType === "audio") {
    return h("div", { class: "frame frame-audio", "aria-hidden": "true" }, h("span", { class: "audio-glyph" }, "♪"));
  }
  if (!preview) return null;
  const remote = safeUrl(preview.thumbnail?.url);
  if (remote && !isSameOrigin(remote)) return remoteThumbnail(remote);
  const dims = /^(\d+)x(\d+)$/.exec(preview.thumbnail?.dimensions ?? "");
  const frame = h("div", { class: "frame" });
  if (dims) frame.style.aspectRatio = `${dims[1]} / ${dims[2]}`;
  const dominant = preview.palette?.dominant ?? preview.dominantColor;
  if (dominant && hexColor.test(dominant)) frame.style.backgroundColor = dominant;

  const hash = preview.placeholder?.value;
  if (hash && isBlurhashValid(hash).result) {
    const [w, h2] = dims ? fitPlaceholder(Number(dims[1]), Number(dims[2])) : [placeholderPx, placeholderPx];
    const canvas = h("canvas", { id: "placeholder", width: w, height: h2, "aria-hidden": "true" });
    const ctx = canvas.getContext("2d");
    if (ctx) {
      // Decoded and drawn before the thumbnail is even requested: the placeholder shows at once.
      ctx.putImageData(new ImageData(new Uint8ClampedArray(decodeBlurhash(hash, w, h2)), w, h2), 0, 0);
      canvas.dataset.drawn = "true";
    }
    frame.append(canvas);
  }

  const thumbUrl = safeUrl(preview.thumbnail?.url);
  if (thumbUrl && isSameOrigin(thumbUrl)) {
    const img = h("img", { id: "thumb", class: "thumb", alt: "Thumbnail" });
    const shown = () => { if (img.naturalWidth > 0) img.classList.add("loaded"); };
    img.addEventListener("load", shown);
    img.addEventListener("error", () => {
      img.dataset.error = "true";
      frame.append(h("span", { class: "frame-note" }, "The thumbnail did not load."));
    }, { once: true });
    img.src = thumbUrl;
    // Already in the memory cache (the card is redrawn when the job ends): no wait for a load event.
    if (img.complete) requestAnimationFrame(shown);
    frame.append(img);
  } else if (preview.thumbnail === null) {
    frame.append(h("span", { class: "frame-note" }, "Thumbnail pending…"));
  }
  return frame;
}

/** A provider's own thumbnail lives on the provider's host: a link, and fetched only when the visitor asks. */
function remoteThumbnail(url: string): HTMLElement {
  const host = new URL(url).host;
  const button = h("button", { type: "button" }, `Show it (loads from ${host})`);
  const box = h("div", { class: "remote-thumb" },
    h("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, url), " ", button);
  button.addEventListener("click", () => {
    const img = h("img", { id: "thumb", class: "thumb loaded", alt: "Provider thumbnail", referrerpolicy: "no-referrer" });
    img.src = url;
    button.replaceWith(h("div", { class: "frame" }, img));
  });
  return box;
}

/** Placeholder canvas size with the thumbnail's aspect ratio, long side placeholderPx. */
function fitPlaceholder(width: number, height: number): [number, number] {
  if (width >= height) return [placeholderPx, Math.max(1, Math.round((placeholderPx * height) / width))];
  return [Math.max(1, Math.round((placeholderPx * width) / height)), placeholderPx];
}

function palette(data: InspectData): HTMLElement | null {
  const p = data.preview?.palette;
  if (!p) return null;
  const colors = (p.colors ?? [{ hex: p.dominant, share: 1 }]).filter((c) => hexColor.test(c.hex));
  const bar = h("div", { class: "palette-bar", "aria-hidden": "true" });
  const list = h("ol", { id: "palette", class: "palette", "aria-label": "Palette, largest share first" });
  for (const c of colors) {
    const seg = h("span");
    seg.style.backgroundColor = c.hex;
    seg.style.flexGrow = String(c.share);
    bar.append(seg);
    const chip = h("span", { class: "swatch-chip", "aria-hidden": "true" });
    chip.style.backgroundColor = c.hex;
    list.append(h("li", { class: "swatch", "data-hex": c.hex, "data-share": c.share }, chip,
      h("code", {}, c.hex), h("span", { class: "share" }, `${(c.share * 100).toFixed(1)} %`)));
  }
  return h("div", { class: "palette-wrap" }, bar, list);
}

function player(data: InspectData, embed: EmbedData | undefined, title: string): HTMLElement | null {
  // `fields` may leave playback out: then there is nothing to say how to play it.
  if (!data.playback) return null;
  const wrap = h("div", { id: "player", class: "player", "data-component": data.playback?.component ?? "" });
  const src = safeUrl(data.identity?.finalUrl);
  const poster = safeUrl(data.preview?.thumbnail?.url);
  switch (data.playback?.component) {
    case "video": {
      const video = h("video", { "data-role": "player", controls: true, preload: "none", playsinline: true });
      if (poster && isSameOrigin(poster)) video.poster = poster;
      if (src) video.src = src;
      wrap.append(video);
      if (data.preview?.storyboard) append(wrap, storyboardScrubber(data.preview.storyboard, video, data.metadata?.video?.duration?.seconds));
      break;
    }
    case "audio": {
      const audio = h("audio", { "data-role": "player", controls: true, preload: "none" });
      if (src) audio.src = src;
      wrap.append(audio);
      if (data.preview?.waveform) append(wrap, waveformView(data.preview.waveform, audio, data.metadata?.audio?.loudness));
      break;
    }
    case "img": {
      const img = h("img", { "data-role": "player", alt: title, decoding: "async" });
      // A file the service read but the browser cannot show (corrupt, or a format it lacks): say so, no broken icon.
      img.addEventListener("error", () => {
        img.hidden = true;
        wrap.append(h("p", { class: "muted player-note" }, "This browser cannot display the file."));
      }, { once: true });
      if (src) img.src = src;
      wrap.append(img);
      break;
    }
    case "iframe":
      if (embed) return playerFromEmbed(embed, title);
      wrap.append(h("p", { class: "frame-note" }, "Provider player: loading the embed profile…"));
      break;
    default:
      if (src) wrap.append(h("a", { "data-role": "player", href: src, rel: "noopener noreferrer", target: "_blank" }, "Open the page"));
  }
  return wrap;
}

/**
 * The provider's iframe (src from the embed profile). It stays empty until the visitor asks: loading it
 * contacts the provider, and the playground itself makes no request outside this service.
 */
function playerFromEmbed(embed: EmbedData, title: string): HTMLElement {
  const wrap = h("div", { id: "player", class: "player player-iframe", "data-component": embed.render.tag });
  const src = safeUrl(embed.render.attributes["src"]);
  if (embed.render.tag !== "iframe" || !src) {
    wrap.append(h("p", { class: "frame-note" }, "No embeddable player."));
    return wrap;
  }
  const iframe = h("iframe", {
    "data-role": "player",
    "data-src": src,
    title: `${title} (provider player)`,
    allow: "encrypted-media; picture-in-picture; fullscreen",
    allowfullscreen: embed.render.attributes["allowfullscreen"] === true,
    referrerpolicy: "strict-origin-when-cross-origin",
    loading: "lazy",
  });
  const host = new URL(src).host;
  const button = h("button", { type: "button", class: "load-remote load-player" }, `▶ Load player from ${host}`);
  button.addEventListener("click", () => {
    iframe.src = src;
    button.remove();
  });
  wrap.append(iframe, button);
  return wrap;
}

function facts(data: InspectData): HTMLElement {
  const m = data.metadata;
  const av = m?.video ?? m?.audio ?? undefined;
  const image = m?.image ?? undefined;
  const video = m?.video ?? undefined;
  const audio = m?.audio ?? undefined;
  const width = image?.width ?? video?.width;
  const height = image?.height ?? video?.height;
  const oembed = data.providerData?.oembed ?? undefined;
  const rows: [string, unknown][] = [
    ["Category", data.semantic?.semanticType ?? data.semantic?.kind],
    ["MIME", data.identity?.mime],
    ["Size", m?.size ? `${m.size.formatted} (${m.size.bytes.toLocaleString("en")} B)` : undefined],
    ["Dimensions", width && height ? `${width} × ${height}` : undefined],
    ["Duration", av?.duration?.formatted],
    ["Frame rate", video?.fps !== undefined ? `${video.fps} fps` : undefined],
    ["Bitrate", av?.bitrate?.formatted],
    ["Sample rate", audio?.sampleRate !== undefined ? `${audio.sampleRate.toLocaleString("en")} Hz` : undefined],
    ["Channels", audio?.channels],
    ["Codec", video?.codec ?? audio?.codec],
    ["Colour space", image?.colorSpace],
    ["Alpha", image?.hasAlpha],
    ["Rotation", (video as { rotation?: number } | undefined)?.rotation],
    ["Filename", m?.filename],
    ["Provider", data.provider ? `${data.provider.name} (${data.provider.detectionMethod}, ${data.provider.confidence})` : undefined],
    ["Author", typeof oembed?.["author_name"] === "string" ? oembed["author_name"] : undefined],
    ["Embed URL", data.playback?.embedUrl],
    ["Playback", data.playback ? `${data.playback.strategy} / ${data.playback.component}` : undefined],
    ["Streamable", data.playback?.streamable],
    ["Final URL", data.identity?.finalUrl],
  ];
  if (m?.video === null || m?.audio === null || m?.image === null) rows.push(["Metadata", "pending…"]);
  return factTable(rows);
}

function factTable(rows: [string, unknown][]): HTMLElement {
  const body = h("tbody");
  for (const [label, value] of rows) {
    if (value === undefined || value === null || value === "") continue;
    const text = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
    body.append(h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, text)));
  }
  return h("table", { id: "facts", class: "facts" }, h("caption", { class: "visually-hidden" }, "Facts"), body);
}
