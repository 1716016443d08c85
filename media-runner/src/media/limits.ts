/**
 * Memory and work bounds of every ffprobe/ffmpeg run on untrusted media (issue 15, item 3), in one place.
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
