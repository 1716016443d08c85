/** Recognises HLS and DASH manifests from their first bytes, Content-Type or extension; bytes win. */

export type ManifestProtocol = "hls" | "dash";

export const manifestMimes: Readonly<Record<ManifestProtocol, string>> = {
  hls: "application/vnd.apple.mpegurl",
  dash: "application/dash+xml",
};

const hlsTypes = new Set(["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"]);
const dashTypes = new Set(["application/dash+xml"]);

/** Bytes looked at: the signature sits at the start (after a BOM, an XML declaration or comments). */
export const recognizeBytes = 1024;

export function recognizeManifest(head: Uint8Array, contentType?: string | null, url?: string): ManifestProtocol | undefined {
  const sniffed = sniffManifest(head);
  if (sniffed !== "other") return sniffed ?? hinted(contentType, url);
  return undefined;
}

/** "other": the bytes are something else (binary, HTML, other XML); undefined: they say nothing (e.g. empty). */
export function sniffManifest(head: Uint8Array): ManifestProtocol | "other" | undefined {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(head.subarray(0, recognizeBytes)).replace(/^\uFEFF/, "");
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (i === text.length) return undefined;
  if (text.startsWith("#EXTM3U", i)) return "hls";
  if (text[i] !== "<") return "other";
  // Skip the XML declaration, comments and a doctype, then read the first element's local name.
  while (i < text.length) {
    if (text.startsWith("<?", i)) i = after(text, "?>", i);
    else if (text.startsWith("<!--", i)) i = after(text, "-->", i);
    else if (text.startsWith("<!", i)) i = after(text, ">", i);
    else if (text[i] === "<") {
      let end = i + 1;
      while (end < text.length && /[\w:.-]/.test(text[end]!)) end++;
      const name = text.slice(i + 1, end);
      return name.slice(name.indexOf(":") + 1) === "MPD" ? "dash" : "other";
    } else if (isSpace(text.charCodeAt(i))) i++;
    else return "other";
    if (i < 0) return undefined;
  }
  return undefined;
}

function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from);
  return at < 0 ? -1 : at + token.length;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function hinted(contentType: string | null | undefined, url: string | undefined): ManifestProtocol | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (hlsTypes.has(type)) return "hls";
  if (dashTypes.has(type)) return "dash";
  let path = "";
  try {
    path = url ? new URL(url).pathname.toLowerCase() : "";
  } catch {
    return undefined;
  }
  if (path.endsWith(".m3u8")) return "hls";
  if (path.endsWith(".mpd")) return "dash";
  return undefined;
}
