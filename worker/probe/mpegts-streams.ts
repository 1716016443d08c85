/**
 * Audio and video stream counts of an MPEG transport stream from its first packets (ISO 13818-1 2.4.4): the
 * PAT names each program's PMT PID, each PMT lists its elementary streams with a stream_type. One pass over
 * the packets of the head, no backtracking; sections are reassembled up to the PSI maximum only.
 */

export interface MpegStreams {
  video: number;
  audio: number;
}

/** One elementary stream a PMT lists: its PID, stream_type, and the kind it carries. */
export interface TsElementaryStream { pid: number; type: number; kind: "audio" | "video" }

const syncByte = 0x47;
/** Plain TS packets, and M2TS (Blu-ray) packets with a 4-byte timestamp before each. */
const packetSizes = [188, 192] as const;
/** A PSI section is at most 1024 bytes (section_length is 10 bits, ISO 13818-1 2.4.4.11). */
const maxSectionBytes = 1024 + 3;
/** Programs read from the PAT: a broadcast multiplex has a few dozen. */
const maxPrograms = 64;

const videoTypes = new Set([0x01, 0x02, 0x10, 0x1b, 0x1e, 0x1f, 0x20, 0x24, 0x25, 0x33, 0x42, 0xd1, 0xea]);
const audioTypes = new Set([0x03, 0x04, 0x0f, 0x11, 0x1c, 0x2d, 0x2e, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0xa1, 0xa2]);
/** DVB descriptors of audio carried as private data (stream_type 0x06): AC-3, E-AC-3, DTS, AAC, DTS-HD, AC-4. */
const audioDescriptorTags = new Set([0x6a, 0x7a, 0x7b, 0x7c]);
/** Registration descriptor (tag 0x05) format identifiers of private-data streams. */
const audioFormatIds = new Set(["AC-3", "EAC3", "DTS1", "DTS2", "DTS3", "Opus", "BSSD", "mlpa"]);
const videoFormatIds = new Set(["HEVC", "VC-1", "AV01", "drac"]);

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

type Kind = "audio" | "video" | undefined;

function privateStreamKind(descriptors: Uint8Array): Kind {
  for (let o = 0; o + 2 <= descriptors.length;) {
    const tag = descriptors[o]!;
    const length = descriptors[o + 1]!;
    if (audioDescriptorTags.has(tag)) return "audio";
    if (tag === 0x05 && length >= 4) {
      const id = String.fromCharCode(...descriptors.subarray(o + 2, o + 6));
      if (audioFormatIds.has(id)) return "audio";
      if (videoFormatIds.has(id)) return "video";
    }
    o += 2 + length;
  }
  return undefined;
}

function streamKind(type: number, descriptors: Uint8Array): Kind {
  if (videoTypes.has(type)) return "video";
  if (audioTypes.has(type)) return "audio";
  return type === 0x06 ? privateStreamKind(descriptors) : undefined;
}

/** A complete section's body (after the 3-byte header, without the CRC), or undefined while incomplete. */
function sectionBody(section: Uint8Array): Uint8Array | undefined {
  if (section.length < 3) return undefined;
  const length = ((section[1]! & 0x0f) << 8) | section[2]!;
  if (section.length < 3 + length || length < 9) return undefined;
  return section.subarray(3, 3 + length - 4);
}

/**
 * Stream counts from the PAT and every PMT it names, when they all appear in `b`; undefined when the bytes
 * are not a transport stream or a table is missing (the caller keeps the magic number's category).
 */
export function readMpegTsStreams(b: Uint8Array): (MpegStreams & { streams: TsElementaryStream[] }) | undefined {
  const layout = packetSizeOf(b);
  if (!layout) return undefined;
  const pending = new Map<number, Uint8Array>(); // PID -> section bytes gathered so far
  let pmtPids: Set<number> | undefined;
  const done = new Set<number>();
  const out: MpegStreams & { streams: TsElementaryStream[] } = { video: 0, audio: 0, streams: [] };
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
        const kind = streamKind(body[e]!, body.subarray(e + 5, e + 5 + esInfo));
        if (kind) {
          out[kind]++;
          out.streams.push({ pid: ((body[e + 1]! & 0x1f) << 8) | body[e + 2]!, type: body[e]!, kind });
        }
        e += 5 + esInfo;
      }
      if (pmtPids !== undefined && done.size === pmtPids.size) return out;
    }
  }
  return undefined;
}
