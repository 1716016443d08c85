/**
 * Fragmented-MP4 media segments carrying `pssh` boxes in their moof, made at set-up: ffmpeg writes a fragmented
 * file, cut into its initialization segment (ftyp + moov) and its first media segment (styp + moof + mdat), and
 * `pssh` boxes are added inside the moof (what key-rotating packagers do), the moof's size and its trun data
 * offset moved by the bytes added. The samples stay clear (ffmpeg 5.1 cannot read back its own fragmented CENC
 * output: "saio atom found without saiz"), so ffmpeg itself can check that the segment still decodes.
 * One segment carries Widevine and PlayReady; a hostile one carries 100,000 pssh boxes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { playready, pssh, widevine } from "./track-fixtures.ts";

export const fragmentFixtures = { init: "frag-init.mp4", segment: "frag-pssh.m4s", hostile: "frag-100k-pssh.m4s" } as const;

interface TopBox { type: string; start: number; size: number }

function topLevel(b: Uint8Array): TopBox[] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: TopBox[] = [];
  for (let o = 0; o + 8 <= b.length;) {
    const size = view.getUint32(o);
    out.push({ type: String.fromCharCode(...b.subarray(o + 4, o + 8)), start: o, size });
    if (size < 8) break;
    o += size;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The moof with `extra` boxes appended inside it; its size and every trun's data offset (moof-relative) moved. */
export function moofWith(moof: Uint8Array, extra: Uint8Array[]): Uint8Array {
  const added = extra.reduce((n, b) => n + b.length, 0);
  const out = concat([moof, ...extra]);
  const view = new DataView(out.buffer);
  view.setUint32(0, moof.length + added);
  for (let o = 8; o + 8 <= moof.length;) {
    const size = view.getUint32(o);
    if (String.fromCharCode(...out.subarray(o + 4, o + 8)) === "traf") {
      for (let t = o + 8; t + 8 <= o + size;) {
        const childSize = view.getUint32(t);
        const flags = view.getUint32(t + 8) & 0xffffff;
        if (String.fromCharCode(...out.subarray(t + 4, t + 8)) === "trun" && flags & 1) view.setInt32(t + 16, view.getInt32(t + 16) + added);
        if (childSize < 8) break;
        t += childSize;
      }
    }
    if (size < 8) break;
    o += size;
  }
  return out;
}

const styp = () => {
  const body = new TextEncoder().encode("msdh\0\0\0\0msdhmsix");
  const b = new Uint8Array(8 + body.length);
  new DataView(b.buffer).setUint32(0, b.length);
  b.set(new TextEncoder().encode("styp"), 4);
  b.set(body, 8);
  return b;
};

export function ensureFragmentFixtures(dir: string): string {
  mkdirSync(dir, { recursive: true });
  if (Object.values(fragmentFixtures).every((f) => existsSync(join(dir, f)))) return dir;
  const whole = join(dir, `frag-${process.pid}.mp4`);
  execFileSync("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "4", "-c:v", "libx264", "-g", "10",
    "-movflags", "frag_keyframe+empty_moov+default_base_moof", whole], { stdio: ["ignore", "ignore", "pipe"] });
  const b = new Uint8Array(readFileSync(whole));
  const boxes = topLevel(b);
  const bytesOf = (box: TopBox) => b.subarray(box.start, box.start + box.size);
  const init = concat(boxes.filter((x) => x.type === "ftyp" || x.type === "moov").map(bytesOf));
  const moof = boxes.find((x) => x.type === "moof")!;
  const mdat = boxes[boxes.indexOf(moof) + 1]!;
  const segment = (extra: Uint8Array[]) => concat([styp(), moofWith(bytesOf(moof), extra), bytesOf(mdat)]);
  const write = (name: string, bytes: Uint8Array) => {
    writeFileSync(join(dir, `partial-${process.pid}-${name}`), bytes);
    renameSync(join(dir, `partial-${process.pid}-${name}`), join(dir, name));
  };
  write(fragmentFixtures.init, init);
  write(fragmentFixtures.segment, segment([pssh(widevine), pssh(playready)]));
  write(fragmentFixtures.hostile, segment(Array.from({ length: 100_000 }, (_, i) => pssh(i % 2 ? widevine : playready))));
  execFileSync("rm", ["-f", whole]);
  return dir;
}
