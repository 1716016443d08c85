import type { C2pa } from "../../shared/shapes/provenance.ts";
import { maxLinkHeaderChars } from "../config/limits.ts";
import { readC2pa } from "./c2pa-manifest.ts";

/**
 * Sidecar C2PA manifest stores (.c2pa files): C2PA's external-manifest discovery. An asset without an embedded store
 * may name one in its XMP (`dcterms:provenance`) or in its HTTP response (`Link: <url>; rel="c2pa-manifest"`, the
 * registered link relation; the header takes precedence). The store is read by the CAI's SDK as
 * `application/c2pa`: it checks the claim signature; the hashes that bind the store to the asset's bytes cannot be
 * checked through the SDK's WebAssembly reader (it has no call taking a store and its asset apart), so those
 * failures are dropped as for a partly read file and `validation` is left out unless the signature itself fails.
 */
export const sidecarMime = "application/c2pa";

/** The manifest URL a response's Link header gives with rel="c2pa-manifest" (rel may list several relations). */
export function linkedManifest(link: string | undefined, base: string): string | undefined {
  if (!link || link.length > maxLinkHeaderChars) return undefined;
  // One pass over the bounded header: each link-value is "<" URI ">" followed by ;-parameters, comma-separated.
  let i = 0;
  while (i < link.length) {
    const open = link.indexOf("<", i);
    if (open < 0) return undefined;
    const close = link.indexOf(">", open + 1);
    if (close < 0) return undefined;
    const next = link.indexOf("<", close + 1);
    const params = link.slice(close + 1, next < 0 ? link.length : next).toLowerCase();
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? "").split(/\s+/);
    if (rels.includes("c2pa-manifest")) return httpUrl(link.slice(open + 1, close).trim(), base);
    i = close + 1;
  }
  return undefined;
}

/** An absolute http(s) URL from a reference (relative ones resolve against the asset's URL). */
export function httpUrl(reference: string | undefined, base: string): string | undefined {
  if (!reference || reference.length > 2048) return undefined;
  try {
    const url = new URL(reference, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The store's facts as the SDK reads them, with the URL it came from. */
export async function readSidecar(url: string, bytes: Uint8Array, trustAnchors: string): Promise<C2pa> {
  const c2pa = await readC2pa(sidecarMime, bytes, false, trustAnchors);
  return { ...c2pa, manifestUrl: url };
}
