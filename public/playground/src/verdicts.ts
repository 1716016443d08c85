import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import { h } from "./dom.ts";

type Compatibility = NonNullable<NonNullable<InspectData["playback"]>["compatibility"]>;
const labels: Record<string, string> = { chrome: "Chrome", firefox: "Firefox", safari: "Safari", ios: "iOS", android: "Android", edge: "Edge" };

/** `playback.codecs` and one chip per platform (native / MSE / no) with its reasons under it; null without verdicts. */
export function verdicts(playback: InspectData["playback"]): HTMLElement | null {
  const compatibility: Compatibility | undefined = playback?.compatibility;
  if (!compatibility) return null;
  const list = h("ul", { id: "verdicts", class: "verdicts" });
  for (const [browser, v] of Object.entries(compatibility)) {
    if (!v) continue;
    list.append(h("li", { class: `verdict verdict-${v.verdict}`, "data-browser": browser, "data-verdict": v.verdict },
      h("strong", {}, labels[browser] ?? browser), " ", h("span", { class: "verdict-word" }, v.verdict === "mse" ? "MSE player" : v.verdict === "eme" ? `EME · ${v.keySystem ?? "licence"}` : v.verdict),
      v.reasons.length > 0 ? h("small", {}, v.reasons.join("; ")) : null));
  }
  return h("div", { class: "will-it-play" }, playback?.codecs ? h("code", { id: "playback-codecs" }, playback.codecs) : null, list);
}
