import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * MP4s whose moov (at the end, so chunk offsets into the mdat stay valid) is rewritten to attack the edge's moov
 * walk (worker/probe/mp4-boxes.ts): a lying track count, thousands of tiny boxes, sizes past their parent, a
 * zero-size box. Made from head-fixtures' `big-moov-end.mp4` by byte surgery; nothing binary committed.
 */

interface Box { type: string; start: number; size: number; header: number }

function topLevel(file: Buffer): Box[] {
  const out: Box[] = [];
  for (let o = 0; o + 8 <= file.length;) {
    let size = file.readUInt32BE(o);
    let header = 8;
    if (size === 1) { size = Number(file.readBigUInt64BE(o + 8)); header = 16; }
    if (size === 0) size = file.length - o;
    out.push({ type: file.toString("latin1", o + 4, o + 8), start: o, size, header });
    o += size;
  }
  return out;
}

function children(file: Buffer, parent: Box): Box[] {
  const out: Box[] = [];
  for (let o = parent.start + parent.header; o + 8 <= parent.start + parent.size;) {
    const size = file.readUInt32BE(o);
    out.push({ type: file.toString("latin1", o + 4, o + 8), start: o, size, header: 8 });
    o += size;
  }
  return out;
}

function box(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}

/** The file with its moov (the last top-level box) replaced by `moov`. */
function withMoov(file: Buffer, make: (moov: Box, kids: Box[]) => Buffer): Buffer {
  const moov = topLevel(file).find((b) => b.type === "moov")!;
  if (moov.start + moov.size !== file.length) throw new Error("hostile fixtures need the moov at the end");
  return Buffer.concat([file.subarray(0, moov.start), make(moov, children(file, moov))]);
}

const bytesOf = (file: Buffer, b: Box) => file.subarray(b.start, b.start + b.size);

export const hostileMp4s: Record<string, { attack: string; make: (source: Buffer) => Buffer }> = {
  "hostile-next-track-1.mp4": {
    attack: "mvhd's next_track_ID says there are no tracks",
    make: (f) => withMoov(f, (moov) => {
      const out = Buffer.from(bytesOf(f, moov));
      const mvhd = children(f, moov).find((b) => b.type === "mvhd")!;
      out.writeUInt32BE(1, mvhd.start - moov.start + 8 + 96);
      return out;
    }),
  },
  "hostile-free-boxes.mp4": {
    attack: "3,000 empty boxes between mvhd and the traks (past the walk's box cap)",
    make: (f) => withMoov(f, (_moov, kids) => {
      const parts = kids.map((k) => bytesOf(f, k));
      const free = Array.from({ length: 3000 }, () => box("free", Buffer.alloc(0)));
      return box("moov", Buffer.concat([parts[0]!, ...free, ...parts.slice(1)]));
    }),
  },
  "hostile-trak-size.mp4": {
    attack: "the first trak's size points far past the end of the moov and the file",
    make: (f) => withMoov(f, (moov, kids) => {
      const out = Buffer.from(bytesOf(f, moov));
      const trak = kids.find((b) => b.type === "trak")!;
      out.writeUInt32BE(0xfffffff0, trak.start - moov.start);
      return out;
    }),
  },
  "hostile-zero-size.mp4": {
    attack: "the first trak's size is 0 (\"to the end\") and the second's is 7 (smaller than a header)",
    make: (f) => withMoov(f, (moov, kids) => {
      const out = Buffer.from(bytesOf(f, moov));
      const [first, second] = kids.filter((b) => b.type === "trak");
      out.writeUInt32BE(0, first!.start - moov.start);
      out.writeUInt32BE(7, second!.start - moov.start);
      return out;
    }),
  },
};

export const hostileMp4Files = Object.keys(hostileMp4s);

/** Writes the hostile files next to `big-moov-end.mp4` in the origin's media directory. */
export function ensureHostileMp4s(mediaDir: string): void {
  const source = readFileSync(join(mediaDir, "big-moov-end.mp4"));
  for (const [name, hostile] of Object.entries(hostileMp4s)) {
    const out = join(mediaDir, name);
    if (!existsSync(out)) writeFileSync(out, hostile.make(source));
  }
}
