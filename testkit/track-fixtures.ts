// Files with tracks, chapters, captions and encryption, made with ffmpeg for the track tests (edge and runner).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";

/**
 * An H.264 Annex B stream with an ATSC A/53 caption SEI (T.35, GA94, cc_data with one CEA-608 field-1 pair and
 * one field-2 pair) before every slice: what a broadcast encoder writes, made by hand since ffmpeg has no
 * caption encoder.
 */
export function withCaptionSei(annexB: Buffer): Uint8Array {
  const parity = (c: number) => (c | ([...c.toString(2)].filter((x) => x === "1").length % 2 === 0 ? 0x80 : 0));
  const starts: number[] = [];
  for (let i = annexB.indexOf(Buffer.from([0, 0, 1])); i >= 0; i = annexB.indexOf(Buffer.from([0, 0, 1]), i + 3)) starts.push(i);
  const out: number[] = [];
  starts.forEach((s, n) => {
    let nal = annexB.subarray(s + 3, n + 1 < starts.length ? starts[n + 1] : annexB.length);
    while (nal.length > 0 && nal[nal.length - 1] === 0) nal = nal.subarray(0, nal.length - 1);
    const type = nal[0]! & 0x1f;
    if (type === 1 || type === 5) {
      const cc = [0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0x42, 0xff, 0xfc, parity(0x48), parity(0x49), 0xfd, 0x80, 0x80, 0xff];
      out.push(0, 0, 0, 1, 0x06, 4, cc.length, ...cc, 0x80);
    }
    out.push(0, 0, 0, 1, ...nal);
  });
  return Uint8Array.from(out);
}


function box(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length);
  new DataView(out.buffer).setUint32(0, out.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  return out;
}

/** A version 0 pssh box for a system ID (hex), no key IDs, no data. */
export function pssh(systemId: string): Uint8Array {
  const body = new Uint8Array(4 + 16 + 4);
  for (let i = 0; i < 16; i++) body[4 + i] = parseInt(systemId.slice(i * 2, i * 2 + 2), 16);
  return box("pssh", body);
}

/** A moov-last MP4 with boxes appended inside its moov (nothing after the moov moves, so no offset changes). */
export function withMoovBoxes(path: string, extra: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  let o = 0;
  while (o + 8 <= bytes.length) {
    const size = view.getUint32(o);
    const type = String.fromCharCode(...bytes.subarray(o + 4, o + 8));
    if (type === "moov") {
      if (o + size !== bytes.length) throw new Error("fixture: the moov must be last");
      const added = extra.reduce((n, b) => n + b.length, 0);
      const out = new Uint8Array(bytes.length + added);
      out.set(bytes);
      let at = bytes.length;
      for (const b of extra) { out.set(b, at); at += b.length; }
      new DataView(out.buffer).setUint32(o, size + added);
      return out;
    }
    o += size;
  }
  throw new Error("fixture: no moov");
}

/** Widevine's and PlayReady's system IDs (what a packager writes in pssh). */
export const widevine = "edef8ba979d64acea3c827dcd51d21ed";
export const playready = "9a04f07998404286ab92e65be0885f95";

/** Makes the fixtures in `dir` once (a marker file records that they are complete). */
export function ensureTrackFixtures(dir: string): void {
  const run = (args: string[]) => execFileSync(ffmpeg, ["-v", "error", "-y", ...args], { cwd: dir });

  mkdirSync(dir, { recursive: true });
  if (existsSync(join(dir, "done-v3"))) return;
  writeFileSync(join(dir, "s.srt"), "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,500 --> 00:00:02,500\nWorld\n");
  writeFileSync(join(dir, "s.vtt"), "WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n");
  writeFileSync(join(dir, "s.ass"), "[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\nStyle: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,Hi\n");
  writeFileSync(join(dir, "ch.txt"), ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1250\ntitle=Intro\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1250\nEND=3000\ntitle=Main part\n");
  run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-f", "lavfi", "-i", "sine=f=440", "-f", "lavfi", "-i", "sine=f=660", "-t", "3",
    "-c:v", "libx264", "-c:a", "aac", "-map", "0:v", "-map", "1:a", "-map", "2:a", "base.mp4"]);
  run(["-i", "base.mp4", "-i", "s.srt", "-i", "s.srt", "-i", "ch.txt", "-map", "0", "-map", "1", "-map", "2", "-map_chapters", "3", "-c", "copy", "-c:s", "mov_text",
    "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-disposition:a:1", "visual_impaired",
    "-metadata:s:s:0", "language=spa", "-metadata:s:s:1", "language=ger", "-disposition:s:0", "default", "-disposition:s:1", "forced+hearing_impaired",
    "-movflags", "+faststart", "subs.mp4"]);
  run(["-i", "base.mp4", "-i", "s.srt", "-i", "s.ass", "-i", "s.vtt", "-i", "ch.txt", "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map_chapters", "4",
    "-c:v", "copy", "-c:a", "copy", "-c:s:0", "srt", "-c:s:1", "ass", "-c:s:2", "webvtt",
    "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-disposition:a:1", "visual_impaired+descriptions",
    "-metadata:s:s:0", "language=spa", "-metadata:s:s:1", "language=ger", "-metadata:s:s:2", "language=jpn",
    "-disposition:s:0", "default", "-disposition:s:1", "forced", "-disposition:s:2", "hearing_impaired", "subs.mkv"]);
  run(["-i", "base.mp4", "-c", "copy", "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb",
    "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8", "enc.mp4"]);
  run(["-f", "lavfi", "-i", "sine=f=440:duration=3", "-i", "ch.txt", "-map", "0", "-map_chapters", "1", "-c:a", "libmp3lame", "chapters.mp3"]);
  // ffmpeg's FLAC muxer writes no chapters of its own: the Vorbis comment convention, which ffprobe reads back.
  run(["-f", "lavfi", "-i", "sine=f=440:duration=3", "-c:a", "flac", "-metadata", "CHAPTER001=00:00:00.000", "-metadata", "CHAPTER001NAME=Intro",
    "-metadata", "CHAPTER002=00:00:01.250", "-metadata", "CHAPTER002NAME=Main part", "chapters.flac"]);
  run(["-i", "base.mp4", "-map", "0", "-c", "copy", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=spa",
    "-disposition:a:1", "visual_impaired", "langs.ts"]);
  writeFileSync(join(dir, "cc.h264"), withCaptionSei(execFileSync(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "2",
    "-c:v", "libx264", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"])));
  run(["-fflags", "+genpts", "-r", "10", "-f", "h264", "-i", "cc.h264", "-c", "copy", "cc-raw.mp4"]);
  run(["-i", "cc-raw.mp4", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "cc.ts"]);
  run(["-i", "cc.ts", "-c", "copy", "-movflags", "+faststart", "cc.mp4"]);
  writeFileSync(join(dir, "enc-pssh.mp4"), withMoovBoxes(join(dir, "enc.mp4"), [pssh(widevine), pssh(playready)]));
  run(["-i", "base.mp4", "-i", "ch.txt", "-map", "0", "-map_chapters", "1", "-c", "copy", "chapters.mov"]);
  run(["-i", "base.mp4", "-i", "ch.txt", "-map", "0", "-map_chapters", "1", "-c", "copy", "-movflags", "+disable_chpl", "chapter-track.mp4"]);
  // 200,000 chapters 4 µs apart (a 7 MB Chapters element): the hostile chapter table ffmpeg itself writes.
  const many = [";FFMETADATA1"];
  for (let i = 0; i < 200_000; i++) many.push(`[CHAPTER]\nTIMEBASE=1/1000000\nSTART=${i * 4}\nEND=${i * 4 + 4}\ntitle=c${i}`);
  writeFileSync(join(dir, "many.txt"), many.join("\n") + "\n");
  run(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5", "-i", "many.txt", "-t", "1", "-map", "0", "-map_chapters", "1", "-c:v", "libx264", "many-chapters.mkv"]);
  writeFileSync(join(dir, "done-v3"), "");
}
