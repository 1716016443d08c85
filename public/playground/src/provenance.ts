/** The "Provenance and rights" panel: C2PA badge, AI declaration, creator and licence, capture and location. */
import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import { h, safeUrl } from "./dom.ts";

const badges: Record<string, string> = {
  trusted: "Content Credentials: trusted signer",
  valid: "Content Credentials: valid signature (signer not on the trust list)",
  invalid: "Content Credentials: INVALID",
};

export function provenancePanel(data: InspectData): HTMLElement | null {
  const provenance = data.provenance ?? undefined;
  const capture = data.metadata?.capture ?? undefined;
  const rights = data.metadata?.rights ?? undefined;
  if (!provenance && !capture && !rights) return null;
  const c2pa = provenance?.c2pa;
  const manifest = c2pa?.activeManifest;
  const badge = !c2pa ? null : h("p", { id: "c2pa-badge", class: `c2pa-badge c2pa-${c2pa.present ? (c2pa.validation ?? "unchecked") : "none"}` },
    !c2pa.present ? "No Content Credentials (C2PA)" : badges[c2pa.validation ?? ""] ?? "Content Credentials: present (hashes not checked)");
  const ai = provenance === undefined ? undefined
    : provenance.aiGenerated === true ? `AI-generated (declared: ${provenance.aiBasis ?? "?"})`
      : provenance.aiGenerated === false ? `Captured, not generated (declared: ${provenance.aiBasis ?? "?"})`
        : "Not declared";
  const location = capture?.location;
  const mapUrl = location ? safeUrl(`https://www.openstreetmap.org/?mlat=${location.latitude}&mlon=${location.longitude}#map=16/${location.latitude}/${location.longitude}`) : undefined;
  const rows: [string, string | HTMLElement | undefined][] = [
    ["Signed by", manifest?.signer],
    ["Signed with", manifest?.claimGenerator],
    ["Signed at", manifest?.signedAt],
    ["Actions", manifest?.actions.length ? manifest.actions.join(", ") : undefined],
    ["Validation failures", c2pa?.failures?.join(", ")],
    ["Sidecar manifest", c2pa?.manifestUrl ? link(c2pa.manifestUrl, c2pa.manifestUrl) : undefined],
    ["AI declaration", ai],
    ["Creator", rights?.creator],
    ["Copyright", rights?.copyright],
    ["Licence", rights?.license ? link(rights.license, rights.license) : undefined],
    ["Credit", rights?.credit],
    ["Usage terms", rights?.usageTerms],
    ["Taken at", capture?.takenAt],
    ["Device", capture?.device ? [capture.device.make, capture.device.model, capture.device.software].filter(Boolean).join(" ") : undefined],
    ["Location", location && mapUrl
      ? link(`${location.latitude.toFixed(5)}, ${location.longitude.toFixed(5)}${location.altitudeM !== undefined ? ` (${location.altitudeM} m)` : ""} - map`, mapUrl)
      : undefined],
  ];
  const body = h("tbody");
  for (const [label, value] of rows) {
    if (value === undefined || value === "") continue;
    body.append(h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, value)));
  }
  return h("div", { id: "provenance" }, badge, h("table", { class: "facts" }, h("caption", { class: "visually-hidden" }, "Provenance and rights"), body));
}

function link(text: string, href: string): HTMLElement | undefined {
  const url = safeUrl(href);
  return url ? h("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, text) : undefined;
}
