/** What the runner's own decoders (dds-bptc.ts, tiff-legacy.ts) give for sharp: an encoded picture, or raw pixels. */
export type DecodedPixels =
  | { encoded: Uint8Array }
  | {
    raw: { data: Uint8Array; width: number; height: number; channels: 1 | 2 | 3 | 4 };
    /** The picture's own size when the pixels were sampled down for a preview. */
    declared?: { width: number; height: number };
  };

/** The decoders a decoder thread runs (decoder-thread.ts). */
export type ThreadDecoder = "dds-bptc" | "tiff-legacy";
