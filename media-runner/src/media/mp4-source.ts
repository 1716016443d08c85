/**
 * MP4/MOV boxes read through a job's RemoteSource (its block cache, shared with the engines): the moov, and a
 * frame's keyframe pulled ahead of ffmpeg (the frame's bytes in one request, not a chain of
 * growing ones behind the engine's reads).
 */
import type { RemoteSource } from "../fetch/remote-source.ts";
import { maxMoovBytes, Mp4IndexError, selectKeyframes } from "./mp4-keyframes.ts";
import { mp4MaxTopLevelBoxes } from "../../../shared/limits.ts";
import { readBoxHeader } from "../../../shared/media/mp4-box-reader.ts";

/** Bytes past the keyframe pulled with it, as a share of its size: the few frames a decoder's reorder delay needs. */
const keyframeTailShare = 1;
/** ... and at least this many (interleaved audio, small keyframes). */
const minKeyframeTailBytes = 64 * 1024;

async function readAll(source: RemoteSource, start: number, end: number, background: boolean): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source.read(start, end, { background })) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * The top-level moov, read through the job's block cache (where ffprobe's reading left it). `background`: for a
 * reader ahead of the engines (the keyframe prefetch), whose requests stop when the job ends.
 */
export async function readMoov(source: RemoteSource, size: number, background = false): Promise<Buffer | undefined> {
  let pos = 0;
  for (let i = 0; i < mp4MaxTopLevelBoxes && pos + 8 <= size; i++) {
    const header = await readAll(source, pos, Math.min(pos + 15, size - 1), background);
    // A 64-bit size the file's last bytes cannot hold: no moov to find.
    if (header.length < 16 && header.readUInt32BE(0) === 1) return undefined;
    const box = readBoxHeader(header, 0, size - pos);
    if (!box || pos + box.size > size) throw new Mp4IndexError("a top-level box overruns the file");
    const boxSize = box.size;
    if (box.type === "moov") {
      if (boxSize > maxMoovBytes) throw new Mp4IndexError("moov too large");
      return readAll(source, pos, pos + boxSize - 1, background);
    }
    pos += boxSize;
  }
  return undefined;
}

/**
 * Pulls the keyframe at or before `time` (and what follows it for the decoder) into the source's cache, for the
 * frame ffmpeg is about to extract there (frame.ts, keyframe-before). A hint: a file this reader cannot index
 * (not MP4, no video track it knows, odd tables) is left to the engine's own reads.
 */
export async function prefetchKeyframe(source: RemoteSource, time: number): Promise<void> {
  if (!source.rangeSupported || source.size === undefined) return;
  try {
    // Only a file that opens with ftyp is walked: the walk reads a block per top-level box.
    if ((await readAll(source, 0, 7, true)).toString("latin1", 4, 8) !== "ftyp") return;
    const moov = await readMoov(source, source.size, true);
    const selection = moov ? selectKeyframes(moov, [time], source.size, "at-or-before") : undefined;
    const keyframe = selection?.keyframes[selection.pick[0]!];
    if (!keyframe) return;
    const tail = Math.max(minKeyframeTailBytes, Math.round(keyframe.size * keyframeTailShare));
    await source.prefetch(keyframe.offset, Math.min(keyframe.offset + keyframe.size + tail, source.size) - 1);
  } catch (error) {
    if (!(error instanceof Mp4IndexError)) throw error;
  }
}
