/**
 * Keyframe samples of an MP4/MOV H.264/HEVC track turned into an Annex B stream: the decoder configuration's
 * parameter sets and each sample's NAL units behind start codes, for ffmpeg's raw h264/hevc demuxer.
 */
import { Mp4IndexError, type KeyframeCodec } from "./mp4-keyframes.ts";

/** Parameter sets of an avcC or hvcC record as NAL units, and the length-field size of the samples' NAL units. */
export function parameterSets(codec: KeyframeCodec, config: Buffer): { nalLengthSize: number; nals: Buffer[] } {
  const nals: Buffer[] = [];
  let pos: number;
  const take = () => {
    if (pos + 2 > config.length) throw new Mp4IndexError("truncated decoder configuration");
    const length = config.readUInt16BE(pos);
    if (pos + 2 + length > config.length) throw new Mp4IndexError("truncated decoder configuration");
    nals.push(config.subarray(pos + 2, pos + 2 + length));
    pos += 2 + length;
  };
  if (codec === "h264") {
    if (config.length < 7 || config[0] !== 1) throw new Mp4IndexError("invalid avcC");
    const nalLengthSize = (config[4]! & 3) + 1;
    pos = 6;
    for (let i = config[5]! & 0x1f; i > 0; i--) take();
    if (pos >= config.length) throw new Mp4IndexError("avcC without PPS count");
    const pps = config[pos++]!;
    for (let i = pps; i > 0; i--) take();
    return { nalLengthSize, nals };
  }
  if (config.length < 23) throw new Mp4IndexError("invalid hvcC");
  const nalLengthSize = (config[21]! & 3) + 1;
  const arrays = config[22]!;
  pos = 23;
  for (let a = 0; a < arrays; a++) {
    if (pos + 3 > config.length) throw new Mp4IndexError("truncated hvcC");
    const count = config.readUInt16BE(pos + 1);
    pos += 3;
    for (let i = 0; i < count; i++) take();
  }
  return { nalLengthSize, nals };
}

const startCode = Buffer.from([0, 0, 0, 1]);
/** Access unit delimiters, so the raw-stream parser starts a new picture at each keyframe. */
const accessUnitDelimiter: Readonly<Record<KeyframeCodec, Buffer>> = {
  h264: Buffer.from([0x09, 0xf0]),
  hevc: Buffer.from([0x46, 0x01, 0x50]),
};

/**
 * One keyframe as an Annex B access unit: a delimiter, the parameter sets, then the sample's NAL units with
 * start codes instead of length fields. Concatenated, these make a raw stream ffmpeg's h264/hevc demuxer reads.
 */
export function annexBAccessUnit(codec: KeyframeCodec, params: { nalLengthSize: number; nals: Buffer[] }, sample: Buffer): Buffer[] {
  const parts: Buffer[] = [startCode, accessUnitDelimiter[codec]];
  for (const nal of params.nals) parts.push(startCode, nal);
  let pos = 0;
  const n = params.nalLengthSize;
  while (pos < sample.length) {
    if (pos + n > sample.length) throw new Mp4IndexError("truncated NAL length");
    let length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + sample[pos + i]!;
    pos += n;
    if (length === 0 || pos + length > sample.length) throw new Mp4IndexError("NAL unit overruns its sample");
    parts.push(startCode, sample.subarray(pos, pos + length));
    pos += length;
  }
  return parts;
}
