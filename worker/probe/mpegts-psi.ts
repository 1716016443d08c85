/**
 * The program tables of an MPEG transport stream from its first packets (ISO 13818-1 2.4.4): the PAT names each
 * program's PMT PID, each PMT lists its elementary streams (PID, stream_type, descriptor loop). One pass over the
 * packets of the head, no backtracking; sections are reassembled up to the PSI maximum only. The stream counts
 * (mpegts-streams.ts), the track list (mpegts-tracks.ts) and the timing reader (mpegts-timing.ts) all start here.
 */

const syncByte = 0x47;
/** Plain TS packets, and M2TS (Blu-ray) packets with a 4-byte timestamp before each. */
const packetSizes = [188, 192] as const;
/** A PSI section is at most 1024 bytes (section_length is 10 bits, ISO 13818-1 2.4.4.11). */
const maxSectionBytes = 1024 + 3;
/** Programs read from the PAT: a broadcast multiplex has a few dozen. */
const maxPrograms = 64;

/** One elementary stream a PMT lists: its PID, stream_type and ES_info descriptor bytes. */
export interface PmtStream { pid: number; type: number; info: Uint8Array }

export function packetSizeOf(b: Uint8Array): { size: number; lead: number; start: number } | undefined {
  for (const size of packetSizes) {
    const lead = size - 188;
    // The first sync byte within one packet, confirmed by the next two packets.
    for (let start = lead; start < size && start + 2 * size < b.length; start++) {
      if (b[start] === syncByte && b[start + size] === syncByte && b[start + 2 * size] === syncByte) return { size, lead, start };
    }
  }
  return undefined;
}

/** A complete section's body (after the 3-byte header, without the CRC), or undefined while incomplete. */
function sectionBody(section: Uint8Array): Uint8Array | undefined {
  if (section.length < 3) return undefined;
  const length = ((section[1]! & 0x0f) << 8) | section[2]!;
  if (section.length < 3 + length || length < 9) return undefined;
  return section.subarray(3, 3 + length - 4);
}

/**
 * The elementary streams of every PMT the PAT names, when they all appear in `b`; undefined when the bytes are
 * not a transport stream or a table is missing.
 */
export function readProgramStreams(b: Uint8Array): PmtStream[] | undefined {
  const layout = packetSizeOf(b);
  if (!layout) return undefined;
  const pending = new Map<number, Uint8Array>(); // PID -> section bytes gathered so far
  let pmtPids: Set<number> | undefined;
  const done = new Set<number>();
  const out: PmtStream[] = [];
  for (let o = layout.start; o + 188 <= b.length; o += layout.size) {
    if (b[o] !== syncByte) return undefined;
    const pid = ((b[o + 1]! & 0x1f) << 8) | b[o + 2]!;
    const wanted = pid === 0 ? pmtPids === undefined : (pmtPids?.has(pid) === true && !done.has(pid));
    const control = (b[o + 3]! >> 4) & 0x3;
    if (!wanted || !(control & 0x1)) continue;
    let p = o + 4 + (control & 0x2 ? 1 + b[o + 4]! : 0);
    if (p >= o + 188) continue;
    let gathered: Uint8Array | undefined;
    if (b[o + 1]! & 0x40) {
      p += 1 + b[p]!; // pointer_field
      if (p >= o + 188) continue;
      gathered = b.slice(p, o + 188);
    } else {
      const before = pending.get(pid);
      if (!before) continue;
      gathered = new Uint8Array(before.length + (o + 188 - p));
      gathered.set(before);
      gathered.set(b.subarray(p, o + 188), before.length);
    }
    if (gathered.length > maxSectionBytes) gathered = gathered.subarray(0, maxSectionBytes);
    const body = sectionBody(gathered);
    if (!body) {
      pending.set(pid, gathered);
      continue;
    }
    pending.delete(pid);
    if (pid === 0 && gathered[0] === 0x00) {
      pmtPids = new Set();
      for (let e = 5; e + 4 <= body.length && pmtPids.size < maxPrograms; e += 4) {
        const program = (body[e]! << 8) | body[e + 1]!;
        if (program !== 0) pmtPids.add(((body[e + 2]! & 0x1f) << 8) | body[e + 3]!);
      }
      if (pmtPids.size === 0) return undefined;
    } else if (pid !== 0 && gathered[0] === 0x02) {
      done.add(pid);
      const infoLength = ((body[7]! & 0x0f) << 8) | body[8]!;
      for (let e = 9 + infoLength; e + 5 <= body.length;) {
        const esInfo = ((body[e + 3]! & 0x0f) << 8) | body[e + 4]!;
        out.push({ pid: ((body[e + 1]! & 0x1f) << 8) | body[e + 2]!, type: body[e]!, info: body.subarray(e + 5, e + 5 + esInfo) });
        e += 5 + esInfo;
      }
      if (pmtPids !== undefined && done.size === pmtPids.size) return out;
    }
  }
  return undefined;
}
