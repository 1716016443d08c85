/**
 * Resolves a URI found in a manifest against the manifest's URL. Only http(s) results are kept: `file:`,
 * `data:`, `concat:` and the like name nothing we fetch. The address checks happen when the URL is fetched.
 */
export function resolveUri(uri: string, base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri.trim(), base);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}
