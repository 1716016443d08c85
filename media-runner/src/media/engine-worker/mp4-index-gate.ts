/**
 * What an MP4/MOV's sample tables make a demuxer allocate, judged before the decoder process opens the file. The
 * mov demuxer builds an index entry (24 bytes) per declared sample: a 70 KB file declaring 80 M samples makes it
 * allocate 1.9 GB. The ffmpeg CLI refuses that allocation (-max_alloc, engine-limits.ts); node-av has no such
 * cap, so a file declaring more samples in one track than that allocation holds is left to the CLI.
 */
import { mp4Boxes, mp4Child, mp4Path, readBoxHeader } from "../../../../shared/media/mp4-box-reader.ts";
import { engineMaxAllocBytes } from "../engine-limits.ts";

/** sizeof(AVIndexEntry) on 64-bit builds. */
const indexEntryBytes = 24;

/** Samples one track may declare for the decoder process: what one index allocation under -max_alloc holds. */
export const decoderMaxTrackSamples = Math.floor(engineMaxAllocBytes / indexEntryBytes);

/** Whether every track's declared samples (stsz/stz2 count, and the sum of stts runs) fit decoderMaxTrackSamples. */
export function mp4IndexFits(moov: Buffer): boolean {
  const header = readBoxHeader(moov, 0, moov.length);
  if (!header || header.type !== "moov") return false;
  const body = { start: header.headerSize, end: Math.min(header.size, moov.length) };
  const walk = mp4Boxes(moov, body);
  for (let step = walk.next(); !step.done; step = walk.next()) {
    const trak = step.value;
    if (trak.type !== "trak") continue;
    const stbl = mp4Path(moov, trak, ["mdia", "minf", "stbl"]);
    if (!stbl) continue;
    const sizes = mp4Child(moov, stbl, "stsz") ?? mp4Child(moov, stbl, "stz2");
    if (sizes && sizes.start + 12 <= sizes.end && moov.readUInt32BE(sizes.start + 8) > decoderMaxTrackSamples) return false;
    const stts = mp4Child(moov, stbl, "stts");
    if (stts && stts.start + 8 <= stts.end) {
      const entries = Math.min(moov.readUInt32BE(stts.start + 4), Math.floor((stts.end - stts.start - 8) / 8));
      let samples = 0;
      for (let i = 0; i < entries; i++) {
        samples += moov.readUInt32BE(stts.start + 8 + i * 8);
        if (samples > decoderMaxTrackSamples) return false;
      }
    }
  }
  return true;
}
