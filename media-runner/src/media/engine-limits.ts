/**
 * Memory and work bounds of every ffprobe/ffmpeg run on untrusted media, in one place.
 * Two layers: ffmpeg's own per-allocation cap refuses a single absurd buffer (a sample table declaring
 * millions of entries makes the mov demuxer allocate 24 bytes per entry: 80 M entries in a 70 KB file took
 * ffprobe to 1.9 GB), and an address-space limit on the child process bounds the total, including memory
 * that libraries (libjxl, libdav1d...) allocate outside ffmpeg's allocator.
 */

const MiB = 1024 * 1024;

/**
 * Largest single allocation of a probe or frame run (`-max_alloc`). The largest legitimate buffer there is
 * one 16-bit plane of a frame at the default 50 Mpx decode limit (100 MB); a sample index this size holds
 * 5.5 M entries, more than 24 hours of 60 fps video.
 */
export const engineMaxAllocBytes = 128 * MiB;

/**
 * Largest single allocation when ffmpeg decodes a still (BMP, ICO, JPEG XL) to PNG: one picture at the
 * pixel limit in the widest packed format those decoders emit (16-bit RGBA, 8 bytes a pixel).
 */
export function stillMaxAllocBytes(maxPixels: number): number {
  return Math.max(engineMaxAllocBytes, 8 * maxPixels);
}

/** Streams a demuxer may create (`-max_streams`, default 1000): above any real file, a broadcast TS included. */
export const engineMaxStreams = 128;

/** Decoder threads (`-threads`): frame threading multiplies frame buffers, and ffmpeg's "auto" is one per core. */
export const engineThreads = 2;

/**
 * Decoder threads of a one-frame decode (the preview frame): a second frame thread only delays the first picture by
 * one more packet and adds a thread's start-up (a 1080p H.264 frame from a local file: 154 -> 129 ms of CPU, medians
 * of 9 on a loaded machine; inside the noise of the whole-service bench).
 */
export const frameThreads = 1;

/** Bytes and media time read to learn the streams (`-probesize`, `-analyzeduration`): ffmpeg's defaults, pinned. */
export const probeSizeBytes = 5_000_000;
export const probeAnalyzeMicroseconds = 5_000_000;

/**
 * Address space mapped by ffmpeg 5.1's shared libraries before any work: Debian's build fails to start
 * under 200 MiB and probes a small file under 300 MiB (measured with prlimit).
 */
const engineLibrariesBytes = 512 * MiB;

/**
 * Address-space limit (RLIMIT_AS) of an engine process: the libraries plus room for a few of its largest
 * allocations (the decoded picture, a converted copy, the encoder's packet). 1 GiB for probes and frames.
 */
export function engineAddressSpaceBytes(maxAllocBytes: number = engineMaxAllocBytes): number {
  return engineLibrariesBytes + 4 * maxAllocBytes;
}

/**
 * Shrink-on-load: libjpeg decodes at 1/2, 1/4 or 1/8 scale straight from the DCT coefficients and
 * libwebp scales while it decodes, so a source over the decode-pixel limit can still get a thumbnail: what is
 * held in memory is the scaled picture, which must itself fit the limit. The source's pixel count still sets
 * the CPU work (every coefficient is read), so it is capped too, at WebP's own largest picture (16383 px a
 * side); a 16000x9000 photo (144 Mpx) decodes at 1/8 to 2000x1125 (2.25 Mpx, about 9 MB as RGBA).
 */
export const shrinkOnLoadMaxSourcePixels = 16384 * 16384;

/**
 * An image file up to this size is downloaded into one buffer and handed to sharp from memory; larger ones (and
 * files of unknown size) stream to a temporary file. A 4 MB TIFF cost its job more CPU to stream through a file than
 * to decode; decoders that need a path (ffmpeg, libheif, the decoder threads) get the file written on first use.
 */
export const inMemoryImageMaxBytes = 16 * MiB;

/** libjpeg's largest DCT scaling factor (1/8 of each side). */
export const jpegMaxShrinkOnLoad = 8;

/**
 * Pixels a shrink-on-load decoder holds for a source of width x height made to fit box x box, following
 * sharp's choice: JPEG the largest factor 8, 4 or 2 at most the needed shrink (one step less when the shrink
 * is exactly that factor, libjpeg's rounding), WebP the box itself.
 */
export function shrinkOnLoadPixels(format: "jpeg" | "webp", width: number, height: number, box: number): number {
  const shrink = Math.max(width, height) / box;
  if (format === "webp") return shrink > 1 ? Math.ceil(width / shrink) * Math.ceil(height / shrink) : width * height;
  let factor = 1;
  for (const f of [jpegMaxShrinkOnLoad, 4, 2]) {
    if (shrink >= f) {
      factor = Math.trunc(shrink) === f ? f / 2 : f;
      break;
    }
  }
  return Math.ceil(width / factor) * Math.ceil(height / factor);
}

/**
 * Address-space limit of heif-convert (libheif + libde265), given that the pixel wall (heif-wall.ts) has checked
 * the coded pictures first, and run with two malloc arenas (heif-decode.ts): its libraries (it ran in 96 MiB on
 * a 4 Mpx picture) plus 12 bytes a pixel (the decoded planes at up to 16 bits, 3 bytes a pixel at 4:2:0, the
 * RGB(A) copy written to PNG, up to 8, and the tiles' decoder state). A 36 Mpx HEIC peaked at 236 MB resident;
 * a 43 Mpx grid of 165 tiles at 261 MB resident and ran in 500 MiB of address space. At the default 50 Mpx wall
 * this is 728 MiB, where ffmpeg's still decode gets over 2 GiB.
 */
export function heifConvertAddressSpaceBytes(maxPixels: number): number {
  return 128 * MiB + 12 * maxPixels;
}

/**
 * The runner's own pure-JS picture decoders (BC6H/BC7 textures, 12-bit and old-style-JPEG TIFF) run in a worker
 * thread each (decoder-thread.ts), under the same wall-clock limit as an engine process and these V8 heap limits:
 * their pixels live in ArrayBuffers outside the heap (bounded by the pixel wall), so the heap holds only the
 * tag tables and the decoder's small state.
 */
export const decoderThreadLimits = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } as const;
/** Decoder threads at most; more pictures wait for one in order. */
export const decoderThreadCount = 2;
/**
 * Resident memory of a frame decoder process (engine-worker/) at which it is killed, mid-job or after one. Node
 * cannot run under RLIMIT_AS or RLIMIT_DATA (V8 reserves its heap cage up front: node 20 crashes at start under
 * either, at 8 GiB), so the runner watches /proc/<pid>/statm instead: the process idles at about 150 MB with
 * FFmpeg's libraries mapped, and a one-frame decode adds the frame buffers (tens of MB at 4K).
 */
export const frameWorkerMaxRssBytes = 768 * MiB;
/** How often a busy decoder's resident memory is read: a runaway allocation gains at most a few hundred MB meanwhile. */
export const frameWorkerRssPollMs = 20;
/** V8 heap of a decoder process (--max-old-space-size, MiB): its JavaScript holds a few messages; pictures are native. */
export const frameWorkerHeapMiB = 96;
/** Packets of the picture stream a decoder reads looking for its one frame (a 10 s GOP at 60 fps is 600). */
export const frameWorkerMaxPackets = 5_000;
