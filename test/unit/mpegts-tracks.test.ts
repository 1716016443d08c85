// MPEG-TS PMT descriptors the edge reads: DVB subtitles (hard-of-hearing type as captions), teletext subtitle pages,
// ISO 639 languages, on a transport stream written by hand (ffmpeg cannot encode DVB subtitles or teletext), and
// compared with what ffprobe lists for the same bytes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readMpegTsTracks } from "../../worker/probe/mpegts-tracks.ts";
import { bcp47Language } from "../../shared/media/languages.ts";

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

function packet(pid: number, payload: number[], start = true): number[] {
  const p = [0x47, (start ? 0x40 : 0) | (pid >> 8), pid & 0xff, 0x10, ...(start ? [0x00] : []), ...payload];
  while (p.length < 188) p.push(0xff);
  return p;
}

/** CRC-32/MPEG-2 (poly 0x04C11DB7, no reflection): ffprobe drops a section whose CRC is wrong. */
function crc32(bytes: number[]): number[] {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let i = 0; i < 8; i++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  crc >>>= 0;
  return [crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff];
}

function section(tableId: number, body: number[]): number[] {
  const length = body.length + 4;
  const head = [tableId, 0xb0 | (length >> 8), length & 0xff, ...body];
  return [...head, ...crc32(head)];
}

function transportStream(): Uint8Array {
  const pat = section(0x00, [0x00, 0x01, 0xc1, 0x00, 0x00, 0x00, 0x01, 0xe1, 0x00]);
  const es = [
    0x1b, 0xe1, 0x01, 0xf0, 0x00,
    0x0f, 0xe1, 0x02, 0xf0, 0x06, 0x0a, 0x04, ...ascii("eng"), 0x00,
    0x0f, 0xe1, 0x05, 0xf0, 0x06, 0x0a, 0x04, ...ascii("spa"), 0x03,
    0x06, 0xe1, 0x03, 0xf0, 0x0a, 0x59, 0x08, ...ascii("deu"), 0x20, 0x00, 0x01, 0x00, 0x01,
    0x06, 0xe1, 0x04, 0xf0, 0x07, 0x56, 0x05, ...ascii("fra"), (0x02 << 3) | 0x01, 0x88,
  ];
  const pmt = section(0x02, [0x00, 0x01, 0xc1, 0x00, 0x00, 0xe1, 0x01, 0xf0, 0x00, ...es]);
  return Uint8Array.from([...packet(0, pat), ...packet(0x100, pmt), ...packet(0x1fff, [], false), ...packet(0x1fff, [], false)]);
}

describe("MPEG-TS PMT tracks", () => {
  it("DVB subtitles, teletext, audio languages and the visual-impaired audio type, as ffprobe lists them", () => {
    const bytes = transportStream();
    const tracks = readMpegTsTracks(bytes)!.tracks!;
    expect(tracks.video).toEqual([{ codec: "h264" }]);
    expect(tracks.audio).toEqual([{ codec: "aac", language: "en" }, { codec: "aac", language: "es", role: "description" }]);
    expect(tracks.text).toEqual([
      { kind: "captions", format: "dvb-subtitle", language: "de" },
      { kind: "subtitles", format: "dvb-teletext", language: "fr" },
    ]);
    const file = join(mkdtempSync(join(tmpdir(), "pmt-")), "pmt.ts");
    writeFileSync(file, bytes);
    const ref = JSON.parse(execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", ["-v", "quiet", "-of", "json", "-show_streams", file]).toString("utf8")) as
      { streams: { codec_type: string; codec_name?: string; tags?: { language?: string }; disposition?: Record<string, number> }[] };
    const subs = ref.streams.filter((s) => s.codec_type === "subtitle");
    expect(subs.map((s) => s.codec_name)).toEqual(["dvb_subtitle", "dvb_teletext"]);
    expect(tracks.text.map((t) => t.language)).toEqual(subs.map((s) => bcp47Language(s.tags?.language)));
    expect(subs[0]!.disposition?.hearing_impaired).toBe(1);
    const audio = ref.streams.filter((s) => s.codec_type === "audio");
    expect(tracks.audio.map((a) => a.language)).toEqual(audio.map((s) => bcp47Language(s.tags?.language)));
    expect(tracks.audio.map((a) => a.role === "description")).toEqual(audio.map((s) => s.disposition?.visual_impaired === 1));
  });

  it("bytes that are not a transport stream give nothing", () => {
    expect(readMpegTsTracks(new Uint8Array(4096).fill(0x47))).toBeUndefined();
    expect(readMpegTsTracks(new Uint8Array(0))).toBeUndefined();
  });
});
