import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";

/** What ffprobe says about a fixture: the reference the service is scored against. */
export interface FfprobeReference {
  file: string;
  formatName: string;
  /** Seconds: the container's duration, else the end of the last packet (files that declare none). */
  duration?: number;
  video?: { width: number; height: number; rotation: number; codec: string; frames: number };
  audio?: { sampleRate: number; channels: number; codec: string };
}

interface Stream {
  codec_type?: string; codec_name?: string; width?: number; height?: number; sample_rate?: string; channels?: number;
  nb_read_packets?: string; disposition?: { attached_pic?: number }; side_data_list?: { rotation?: number }[];
}

const execFileAsync = promisify(execFile);

/** ffprobe's JSON about one file (asynchronous, so a set-up can probe several files at once). */
export async function ffprobeJson(path: string, args: string[]): Promise<unknown> {
  const { stdout } = await execFileAsync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json", ...args, path],
    { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

export { mapLimit } from "./map-limit.ts";

/** Runs ffprobe -of json (with packet counts, and the packet list's end for files that declare no duration). */
export async function ffprobeReference(dir: string, file: string): Promise<FfprobeReference> {
  const probe = await ffprobeJson(join(dir, file), ["-count_packets", "-show_format", "-show_streams"]) as { streams: Stream[]; format: { format_name: string; duration?: string } };
  const out: FfprobeReference = { file, formatName: probe.format.format_name };
  const declared = Number(probe.format.duration);
  // A format whose duration ffprobe only estimates from the bitrate (MP3 without Xing) or lacks (live WebM):
  // the packets are the truth.
  const estimated = probe.format.format_name === "mp3" || !Number.isFinite(declared);
  if (estimated) {
    const packets = await ffprobeJson(join(dir, file), ["-show_entries", "packet=pts_time,duration_time"]) as { packets: { pts_time?: string; duration_time?: string }[] };
    const end = Math.max(0, ...packets.packets.map((p) => Number(p.pts_time ?? 0) + Number(p.duration_time ?? 0)));
    if (end > 0) out.duration = end;
  } else out.duration = declared;
  const video = probe.streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  if (video?.width && video.height) {
    const rotation = ((-(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0)) % 360 + 360) % 360;
    const quarter = rotation === 90 || rotation === 270;
    out.video = { width: quarter ? video.height : video.width, height: quarter ? video.width : video.height, rotation,
      codec: video.codec_name ?? "", frames: Number(video.nb_read_packets ?? 0) };
  }
  const audio = probe.streams.find((s) => s.codec_type === "audio");
  if (audio) out.audio = { sampleRate: Number(audio.sample_rate), channels: audio.channels ?? 0, codec: audio.codec_name ?? "" };
  return out;
}
