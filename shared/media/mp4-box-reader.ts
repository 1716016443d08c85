/**
 * ISO BMFF (MP4, MOV, 3GP) boxes in bytes already read: the one box reader of the Worker's edge probe and the
 * runner's keyframe index, with one set of rules for hostile input.
 *
 * - A header is 8 bytes (size, type); size 1 means a 64-bit size follows the type (a 16-byte header), size 0
 *   means "to the end of the parent". A header that is not whole before its parent's end, or that declares
 *   fewer bytes than itself, is malformed: the walk of that parent stops there.
 * - A box whose size reaches past its parent's end (a cut file, or a lie) is given with its body cut at the
 *   parent's end and `overruns` set; it is the last box of that walk.
 * - A parent has at most mp4MaxChildBoxes children walked, and boxes nest at most mp4MaxBoxDepth deep: past
 *   either, the walk stops. Every walk is linear in the bytes it covers; nothing recurses on its own.
 *
 * Two readings of the same walk. `mp4Boxes` gives what there is and says how the walk ended: the edge reads
 * what a cut or odd file holds. The exact reading (`exact: true`) throws Mp4BoxError where the walk is not
 * complete: the runner's keyframe index needs exact byte offsets and leaves such a file to ffmpeg.
 */
import { mp4MaxBoxDepth, mp4MaxChildBoxes } from "../limits.ts";

export interface Mp4Box {
  type: string;
  /** The body, after the header, to the box's end (or its parent's end, when it overruns it). */
  start: number;
  end: number;
  /** Boxes enclosing it in the walk: 1 for the children of a body walked on its own. */
  depth: number;
  /** The box declares more bytes than its parent holds: its body is cut at the parent's end. */
  overruns: boolean;
}

/** What a walk goes into: a box, or a body read on its own (depth 0 when not given). */
export interface Mp4Parent {
  type?: string;
  start: number;
  end: number;
  depth?: number;
}

/** How a walk over a parent's children ended. */
export type Mp4WalkEnd = "complete" | "overrun" | "malformed" | "too-many-children" | "too-deep";

export interface Mp4BoxHeader {
  type: string;
  /** The whole box, header included (size 0 resolved to the parent's end). */
  size: number;
  headerSize: 8 | 16;
}

/** A box structure the exact reading refuses (and the runner's other checks of MP4 tables). */
export class Mp4BoxError extends Error {
  override name = "Mp4BoxError";
}

const endMessages: Readonly<Record<Exclude<Mp4WalkEnd, "complete" | "overrun">, string>> = {
  malformed: "malformed box header",
  "too-many-children": "too many boxes in one container",
  "too-deep": "boxes nested too deep",
};

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/**
 * The header of the box at `at`; `end` is where its parent (or the file) ends, in the same coordinates as `at`
 * (it may lie past the bytes held: a header read on its own). Undefined when malformed.
 */
export function readBoxHeader(b: Uint8Array, at: number, end: number): Mp4BoxHeader | undefined {
  if (at < 0 || at + 8 > end || at + 8 > b.length) return undefined;
  let size = u32(b, at);
  let headerSize: 8 | 16 = 8;
  if (size === 1) {
    if (at + 16 > end || at + 16 > b.length) return undefined;
    size = u32(b, at + 8) * 2 ** 32 + u32(b, at + 12);
    headerSize = 16;
  } else if (size === 0) {
    size = end - at;
  }
  if (size < headerSize) return undefined;
  let type = "";
  for (let i = at + 4; i < at + 8; i++) type += String.fromCharCode(b[i]!);
  return { type, size, headerSize };
}

/** The children of `parent`, from `from` (its body's start unless a sample entry's fields come first). */
export function* mp4Boxes(b: Uint8Array, parent: Mp4Parent, from = parent.start): Generator<Mp4Box, Mp4WalkEnd> {
  const depth = (parent.depth ?? 0) + 1;
  if (depth > mp4MaxBoxDepth) return "too-deep";
  const end = Math.min(parent.end, b.length);
  let at = from;
  for (let count = 0; at + 8 <= end; count++) {
    if (count >= mp4MaxChildBoxes) return "too-many-children";
    const header = readBoxHeader(b, at, end);
    if (!header) return "malformed";
    const overruns = header.size > end - at;
    yield { type: header.type, start: at + header.headerSize, end: overruns ? end : at + header.size, depth, overruns };
    if (overruns) return "overrun";
    at += header.size;
  }
  return "complete";
}

/** The same walk, throwing Mp4BoxError at an overrunning box or where the walk stops early. */
export function* exactMp4Boxes(b: Uint8Array, parent: Mp4Parent, from = parent.start): Generator<Mp4Box, void> {
  const walk = mp4Boxes(b, parent, from);
  for (;;) {
    const step = walk.next();
    if (step.done) {
      if (step.value === "complete" || step.value === "overrun") return;
      throw new Mp4BoxError(endMessages[step.value]);
    }
    if (step.value.overruns) throw new Mp4BoxError(`${step.value.type} overruns its parent`);
    yield step.value;
  }
}

export interface Mp4Reading {
  /** Where the children start inside the parent's body (after a sample entry's own fields). */
  from?: number;
  /** Throw Mp4BoxError where the walk is not complete instead of giving what there is. */
  exact?: boolean;
}

/** The first child of `parent` of this type. */
export function mp4Child(b: Uint8Array, parent: Mp4Parent, type: string, reading: Mp4Reading = {}): Mp4Box | undefined {
  const walk = reading.exact ? exactMp4Boxes(b, parent, reading.from) : mp4Boxes(b, parent, reading.from);
  for (const box of walk) if (box.type === type) return box;
  return undefined;
}

/** The first child of `parent` (a sample description's first entry). */
export function firstMp4Box(b: Uint8Array, parent: Mp4Parent, reading: Mp4Reading = {}): Mp4Box | undefined {
  const walk = reading.exact ? exactMp4Boxes(b, parent, reading.from) : mp4Boxes(b, parent, reading.from);
  for (const box of walk) return box;
  return undefined;
}

/** The box at the end of a path of types below `parent`, each step the first child of that type. */
export function mp4Path(b: Uint8Array, parent: Mp4Parent, types: readonly string[], reading: Pick<Mp4Reading, "exact"> = {}): Mp4Box | undefined {
  let at: Mp4Parent | undefined = parent;
  let box: Mp4Box | undefined;
  for (const type of types) {
    box = mp4Child(b, at, type, reading);
    if (!box) return undefined;
    at = box;
  }
  return box;
}
