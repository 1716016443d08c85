/**
 * DRM system IDs (the 16 bytes of a `pssh` box, DASH ContentProtection@schemeIdUri urn:uuid:...) and HLS
 * KEYFORMAT values, mapped to the EME key-system name a page asks for. Sources: dashif.org/identifiers/content_protection,
 * the W3C Common PSSH registry, Apple's FairPlay Streaming HLS KEYFORMAT.
 */
const bySystemId: Readonly<Record<string, string>> = {
  "edef8ba979d64acea3c827dcd51d21ed": "com.widevine.alpha",
  "9a04f07998404286ab92e65be0885f95": "com.microsoft.playready",
  "94ce86fb07ff4f43adb893d2fa968ca2": "com.apple.fps",
  "e2719d58a985b3c9781ab030af78d30e": "org.w3.clearkey",
  "1077efecc0b24d02ace33c1e52e2fb4b": "org.w3.clearkey", // W3C Common PSSH: the key IDs, read by ClearKey
};

const byKeyFormat: Readonly<Record<string, string>> = {
  "com.apple.streamingkeydelivery": "com.apple.fps",
  "com.microsoft.playready": "com.microsoft.playready",
  "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "com.widevine.alpha",
  "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": "com.microsoft.playready",
  "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "org.w3.clearkey",
  "org.w3.clearkey": "org.w3.clearkey",
};

/** A system ID as 32 hex digits (any case, dashes allowed) to its EME name, else `urn:uuid:<id>`. */
export function keySystemOfId(id: string): string {
  const hex = id.toLowerCase().replace(/^urn:uuid:/, "").replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/.test(hex)) return id.slice(0, 64);
  return bySystemId[hex] ?? `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An HLS KEYFORMAT (absent: "identity", the plain AES-128 key) to its EME name; undefined for identity. */
export function keySystemOfKeyFormat(format: string | undefined): string | undefined {
  if (!format || format.toLowerCase() === "identity") return undefined;
  const lower = format.toLowerCase();
  return byKeyFormat[lower] ?? (lower.startsWith("urn:uuid:") ? keySystemOfId(lower) : format.slice(0, 64));
}

/** Which browsers' EME offers each key system (Widevine: Chrome, Firefox, Edge, Android; PlayReady: Edge; FairPlay: Safari, iOS; ClearKey: all but Apple's). */
export const keySystemBrowsers: Readonly<Record<string, readonly string[]>> = {
  "com.widevine.alpha": ["chrome", "firefox", "edge", "android"],
  "com.microsoft.playready": ["edge"],
  "com.apple.fps": ["safari", "ios"],
  "org.w3.clearkey": ["chrome", "firefox", "edge", "android"],
};
