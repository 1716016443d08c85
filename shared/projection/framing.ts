/**
 * Whether a page may be shown inside a frame on another site, from the origin's own headers:
 * CSP `frame-ancestors` wins over X-Frame-Options when both are present (CSP Level 2, section 7.7.1).
 * A comma-joined header carries several policies and every one is enforced, so each must allow framing.
 */
export function framingPolicy(headers: Record<string, string>): { allowed: boolean; xFrameOptions?: string; frameAncestors?: string } {
  const xfo = headers["x-frame-options"]?.trim();
  const policies = headers["content-security-policy"]?.split(",") ?? [];
  const directives = policies.flatMap((policy) => {
    // Within one policy only the first frame-ancestors directive counts.
    const directive = policy.split(";").map((d) => d.trim()).find((d) => /^frame-ancestors(\s|$)/i.test(d));
    return directive === undefined ? [] : [directive.slice("frame-ancestors".length).trim()];
  });
  const frameAncestors = directives.length > 0 ? directives.join(", ") : undefined;
  let allowed = true;
  if (directives.length > 0) {
    // Only a wildcard (or an http/https scheme source) lets an arbitrary third-party page frame it.
    allowed = directives.every((d) => d.toLowerCase().split(/\s+/).some((s) => s === "*" || s === "https:" || s === "http:"));
  } else if (xfo) {
    const value = xfo.toLowerCase();
    allowed = !(value === "deny" || value === "sameorigin" || value.startsWith("allow-from"));
  }
  return { allowed, ...(xfo ? { xFrameOptions: xfo } : {}), ...(frameAncestors !== undefined ? { frameAncestors } : {}) };
}
