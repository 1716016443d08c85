/**
 * Whether a page may be shown inside a frame on another site, from the origin's own headers:
 * CSP `frame-ancestors` wins over X-Frame-Options when both are present (CSP Level 2, section 7.7.1).
 */
export function framingPolicy(headers: Record<string, string>): { allowed: boolean; xFrameOptions?: string; frameAncestors?: string } {
  const xfo = headers["x-frame-options"]?.trim();
  const csp = headers["content-security-policy"];
  const directive = csp
    ?.split(/[;,]/)
    .map((d) => d.trim())
    .find((d) => d.toLowerCase().startsWith("frame-ancestors"));
  const frameAncestors = directive?.slice("frame-ancestors".length).trim();
  let allowed = true;
  if (frameAncestors !== undefined) {
    const sources = frameAncestors.toLowerCase().split(/\s+/).filter(Boolean);
    // Only a wildcard (or an http/https scheme source) lets an arbitrary third-party page frame it.
    allowed = sources.some((s) => s === "*" || s === "https:" || s === "http:");
  } else if (xfo) {
    const value = xfo.toLowerCase();
    allowed = !(value === "deny" || value === "sameorigin" || value.startsWith("allow-from"));
  }
  return { allowed, ...(xfo ? { xFrameOptions: xfo } : {}), ...(frameAncestors !== undefined ? { frameAncestors } : {}) };
}
