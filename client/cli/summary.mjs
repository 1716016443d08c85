// The human summary: one aligned line per fact, then one line per browser.

/** @typedef {import("../index.ts").InspectResponse} InspectResponse */
/** @typedef {import("../index.ts").EmbedResponse} EmbedResponse */

/** Width of the label column. */
const labelWidth = 12;

/**
 * ANSI styles, or none (NO_COLOR set to anything but the empty string, or stdout not a terminal: no-color.org).
 * @param {boolean} enabled
 */
export function palette(enabled) {
  /** @param {string} code */
  const style = (code) => (/** @type {string} */ text) => (enabled ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { bold: style("1"), dim: style("2"), green: style("32"), yellow: style("33"), red: style("31") };
}

/** @typedef {ReturnType<typeof palette>} Palette */

/**
 * @param {InspectResponse | EmbedResponse} body
 * @param {string} service
 * @param {Palette} colors
 * @returns {string}
 */
export function summarize(body, service, colors) {
  const rows = "processing" in body ? inspectRows(body, service, colors) : embedRows(body);
  return rows
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([label, value]) => `${colors.bold(label.padEnd(labelWidth))}${value}`)
    .join("\n");
}

/**
 * @param {InspectResponse} body @param {string} service @param {Palette} colors
 * @returns {[string, string | undefined][]}
 */
function inspectRows(body, service, colors) {
  const { identity, semantic, metadata, playback, preview, provider } = body.data;
  const video = metadata?.video ?? undefined;
  const image = metadata?.image ?? undefined;
  const audio = metadata?.audio ?? undefined;
  const sized = video ?? image;
  const duration = video?.duration ?? audio?.duration ?? image?.duration;
  /** @type {[string, string | undefined][]} */
  const rows = [
    ["URL", identity?.url],
    ["MIME", identity?.mime],
    ["Category", [semantic?.semanticType, semantic?.kind ? `(${semantic.kind})` : undefined].filter(Boolean).join(" ")],
    ["Title", semantic?.title],
    ["Provider", provider?.name],
    ["Dimensions", sized?.width && sized.height ? `${sized.width}x${sized.height}` : undefined],
    ["Duration", duration ? `${duration.formatted} (${duration.seconds} s)` : undefined],
    ["Codecs", playback?.codecs ?? [video?.codec, audio?.codec].filter(Boolean).join(", ")],
    ["Video", video ? [video.codec, video.profile, video.fps ? `${video.fps} fps` : undefined, video.bitrate?.formatted].filter(Boolean).join(", ") : undefined],
    ["Audio", audio ? [audio.codec, audio.sampleRate ? `${audio.sampleRate} Hz` : undefined, audio.channelLayout, audio.bitrate?.formatted].filter(Boolean).join(", ") : undefined],
    ["Size", metadata?.size?.formatted],
    ["Playback", playback ? `<${playback.component}> (${playback.strategy}${playback.streamable ? ", Range requests" : ""})` : undefined],
  ];
  const verdicts = Object.entries(playback?.compatibility ?? {});
  const nameWidth = Math.max(0, ...verdicts.map(([browser]) => browser.length)) + 2;
  verdicts.forEach(([browser, { verdict, reasons }], i) => {
    const paint = verdict === "native" ? colors.green : verdict === "mse" ? colors.yellow : colors.red;
    const why = verdict !== "native" && reasons.length > 0 ? colors.dim(`  ${reasons.join("; ")}`) : "";
    rows.push([i === 0 ? "Browsers" : "", `${browser.padEnd(nameWidth)}${paint(verdict)}${why}`]);
  });
  const thumbnail = preview?.thumbnail?.url;
  rows.push(["Thumbnail", thumbnail ? (thumbnail.startsWith("/") ? `${service}${thumbnail}` : thumbnail) : undefined]);
  const { status, pendingStages, failedStages } = body.processing;
  const state = status === "complete" ? "complete" : `partial (pending: ${pendingStages.join(", ")})`;
  rows.push(["Processing", failedStages?.length ? `${state}; failed: ${failedStages.join(", ")}` : state]);
  return rows;
}

/**
 * @param {EmbedResponse} body
 * @returns {[string, string | undefined][]}
 */
function embedRows(body) {
  const { data } = body;
  return [
    ["Embed type", data.embedType],
    ["MIME", data.mime],
    ["Provider", data.provider],
    ["Render", `<${data.render.tag}> (${data.render.strategy}${data.render.safeEmbed ? ", safe to embed" : ""})`],
    ["Embeddable", data.renderability.embeddable.status],
  ];
}
