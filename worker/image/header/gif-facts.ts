import { ascii } from "../../bytes/read-bytes.ts";
import type { ColorFacts } from "./color-facts.ts";

/**
 * GIF colour facts (GIF89a spec): palettes are sRGB; transparency is a flag in the Graphic Control
 * Extension that precedes an image. We read the blocks up to the first image, the frame the edge
 * pipeline decodes.
 */
export function gifColorFacts(b: Uint8Array): ColorFacts | undefined {
  if (ascii(b, 0, 3) !== "GIF" || b.length < 13) return undefined;
  const packed = b[10]!;
  let o = 13 + (packed & 0x80 ? 3 * (1 << ((packed & 0x07) + 1)) : 0);
  let hasAlpha = false;
  while (o < b.length) {
    const introducer = b[o];
    if (introducer === 0x2c || introducer === 0x3b) break; // image descriptor or trailer
    if (introducer !== 0x21) return undefined;
    const label = b[o + 1];
    if (label === 0xf9 && b[o + 2] === 4 && ((b[o + 3] ?? 0) & 0x01) === 1) hasAlpha = true;
    o += 2;
    // Skip the extension's data sub-blocks: each starts with its length, a zero length ends them.
    while (o < b.length && b[o] !== 0) o += 1 + b[o]!;
    o += 1;
  }
  return { colorSpace: "srgb", hasAlpha };
}
