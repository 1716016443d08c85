/**
 * Limits and defaults of the edge (the image pipeline, the probe's reads), with the reasoning behind each number.
 *
 * Decode memory: photon's `PhotonImage.new_from_byteslice` copies the source into wasm memory, lets the
 * `image` crate decode it (JPEG: component planes, then RGB), converts to RGBA and copies that RGBA once
 * more (`to_rgba8().to_vec()`). Measured high-water mark of photon's wasm memory for a 4000x3000 JPEG
 * (5.4 MB file): 139 MiB, i.e. about 11.6 bytes per pixel plus the file; wasm memory never shrinks.
 * Workers count wasm memory in the 128 MB isolate limit, next to the JS heap that still holds the
 * source bytes and the rest of the Worker. We therefore give photon at most `wasmDecodeBudgetBytes`.
 */
export const photonDecodePeakBytesPerPixel = 12;

/** Share of the 128 MB isolate we let photon's wasm memory reach while decoding (the rest: JS heap). */
export const wasmDecodeBudgetBytes = 80 * 1024 * 1024;

/** Default pixel bound checked from the header before decoding: 80 MiB / 12 B ≈ 6.99 MP. */
export const defaultMaxDecodePixels = Math.floor(wasmDecodeBudgetBytes / photonDecodePeakBytesPerPixel);

/** Longest side of the generated thumbnail: the shared default. */
export { THUMBNAIL_MAX_PX as defaultThumbnailMaxPx } from "../../shared/limits.ts";

/** Blurhash input: a downscale whose longest side is this many pixels (encode cost grows with pixels). */
export const placeholderSampleMaxPx = 32;

/** Blurhash components along the longer and the shorter side (4x3 for landscape, 3x4 for portrait). */
export const placeholderComponentsLong = 4;
export const placeholderComponentsShort = 3;

/** Dominant-colour input: a downscale whose longest side is this many pixels. */
export const paletteSampleMaxPx = 64;

/** Largest embedded ICC profile we read (after reassembly or inflation); real profiles are < 1 MiB. */
export const maxIccProfileBytes = 4 * 1024 * 1024;

/**
 * Range requests one inspection's byte source may make after the head. Every edge reader (MP4 box walk,
 * Matroska element walk, image header walks, music-metadata through the tokenizer) reads through that one
 * source, so this bounds them all: a hostile file laid out to make a parser hop from place to place costs at
 * most this many requests (each also a subrequest of the object's invocation), not one per element. Real files
 * need 0-8 (a 30 MB MP4 with a long moov walked sparsely: 7).
 */
export const maxProbeExtraRequests = 32;

/**
 * Bytes read from the end of an MPEG program stream for its last timestamps: sixteen 2 KiB DVD packs,
 * enough for the last PES of every stream a DVD or ffmpeg muxer interleaves. One suffix read, like MPEG-TS's.
 */
export const mpegPsTailBytes = 32 * 1024;

/** Bytes of a program stream's first PES payload kept per stream for its codec header (a sequence header or SPS). */
export const mpegPsPayloadBytes = 2 * 1024;

/** AMR frames walked in the head to learn their sizes (a 16 KiB head holds about 500 frames at 12.2 kbit/s). */
export const amrMaxHeadFrames = 1024;

/**
 * How long a probe waits for the suffix read it pipelined behind (or ahead of) the head before treating it as a
 * miss: an origin that mishandles pipelined requests then costs this much at most, and readers fetch the tail as
 * they would have. An answer on the same connection normally lands one round trip after the head's.
 */
export const probeSuffixPatienceMs = 2_000;

/**
 * Capture, rights and provenance metadata (EXIF, IPTC, XMP, MP4 user data, C2PA) is read only from bytes already
 * in hand, at most this many of them: headers of real files keep it in the first tens of KiB (a C2PA manifest
 * with a thumbnail: 20-200 KiB).
 */
export const maxMetadataBytes = 2 * 1024 * 1024;

/**
 * Most bytes one later read may take to complete an MP4/MOV's capture and rights when its moov was not read whole:
 * what follows the moov's tracks (user data, metadata keys; a few KiB in cameras' and phones' files, more with
 * cover art). Over this the facts are left out with the reason.
 */
export const maxMetadataTailBytes = 1024 * 1024;

/** Longest Link response header searched for a sidecar C2PA manifest (rel="c2pa-manifest"). */
export const maxLinkHeaderChars = 8 * 1024;

/** Largest sidecar C2PA manifest store (.c2pa) fetched; larger ones are left unread with the reason. */
export const maxC2paSidecarBytes = 2 * 1024 * 1024;

/** Largest XMP packet parsed (counted in the bytes, never taken from a declared length); larger ones are refused. */
export const maxXmpBytes = 1024 * 1024;

/** Time one metadata parser (exifr, music-metadata, the C2PA SDK) may take before its fact is left out. */
export const metadataParserTimeoutMs = 2000;

/** Time the C2PA SDK's first load (compiling its 9 MB of WebAssembly, once per isolate) may take. */
export const c2paSdkLoadTimeoutMs = 30_000;
