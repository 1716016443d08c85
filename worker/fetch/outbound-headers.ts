// Headers that identify the caller or the network path. The fetcher builds outbound headers from scratch,
// and also filters these out of anything passed in, so nothing of the client reaches the origin.
const identifyingHeaders = new Set([
  "cookie", "authorization", "proxy-authorization", "forwarded", "x-forwarded-for", "x-forwarded-host",
  "x-forwarded-proto", "x-real-ip", "true-client-ip", "cf-connecting-ip", "cf-connecting-ipv6", "cf-ipcountry",
  "cf-ray", "cf-visitor", "x-client-ip", "x-cluster-client-ip", "client-ip", "via", "referer", "origin",
]);

export const serviceUserAgent = "media-inspect/0.1 (+https://github.com/media-inspect)";

export function outboundHeaders(extra: Record<string, string> = {}): Headers {
  const headers = new Headers({ "user-agent": serviceUserAgent, accept: "*/*" });
  for (const [name, value] of Object.entries(extra)) {
    if (!identifyingHeaders.has(name.toLowerCase())) headers.set(name, value);
  }
  return headers;
}

export function isIdentifyingHeader(name: string): boolean {
  return identifyingHeaders.has(name.toLowerCase());
}
