import { maxKeySystems, type Protection, type TrackFacts } from "../../shared/shapes/tracks.ts";
import { keySystemOfId } from "../../shared/media/key-systems.ts";
import { mp4Boxes } from "../../shared/media/mp4-box-reader.ts";

/**
 * Common Encryption that a fragmented MP4 declares in its movie fragments (ISO/IEC 23001-7): `pssh` boxes in a
 * `moof` (key rotation, and media segments packaged with their own licence data), `senc` sample encryption in a
 * `traf`, and their PIFF `uuid` forms (Smooth Streaming, older PlayReady packagers). A media segment has no moov,
 * so these are all it says about its encryption. Reads only bytes already held; every walk is capped in boxes,
 * so 100,000 pssh boxes cost one bounded pass and give the few distinct systems.
 */
const maxWalkedBoxes = 20_000;
const maxTopLevelBoxes = 64;
const piffPssh = "d08a4f1810f34a82b6c832d8aba183d3";
const piffSenc = "a2394f525a9b4f14a2446c427c648df4";

export function moofProtection(b: Uint8Array): Protection | undefined {
  const systems = new Set<string>();
  let encrypted = false;
  let walked = 0;
  let top = 0;
  const note = (type: string, start: number, end: number) => {
    const uuid = type === "uuid" && start + 16 <= end ? hex(b, start, 16) : undefined;
    if (type === "pssh" || uuid === piffPssh) {
      encrypted = true;
      // pssh: version/flags, then the system ID; PIFF's uuid form: the user type, version/flags, then the system ID.
      // A box cut off by the end of the bytes held before its system ID names none.
      const at = type === "pssh" ? start + 4 : start + 20;
      if (at + 16 <= end && systems.size < maxKeySystems) systems.add(keySystemOfId(hex(b, at, 16)));
    }
    if (type === "senc" || uuid === piffSenc) encrypted = true;
  };
  for (const box of mp4Boxes(b, { start: 0, end: b.length })) {
    if (++top > maxTopLevelBoxes) break;
    if (box.type !== "moof") continue;
    for (const inner of mp4Boxes(b, box)) {
      if (++walked > maxWalkedBoxes) break;
      note(inner.type, inner.start, inner.end);
      if (inner.type !== "traf") continue;
      for (const leaf of mp4Boxes(b, inner)) {
        if (++walked > maxWalkedBoxes) break;
        note(leaf.type, leaf.start, leaf.end);
      }
    }
    if (walked > maxWalkedBoxes) break;
  }
  return encrypted ? { encrypted: true, keySystems: [...systems] } : undefined;
}

/**
 * The track facts with what the held movie fragments add: their key systems joined to the moov's (the moov's
 * scheme kept), or, for a media segment with no moov, the fragments' encryption alone.
 */
export function withMoofProtection(trackFacts: TrackFacts | undefined, held: Uint8Array): TrackFacts | undefined {
  const found = moofProtection(held);
  if (!found) return trackFacts;
  const known = trackFacts?.protection;
  const keySystems = [...new Set([...(known?.keySystems ?? []), ...found.keySystems])].slice(0, maxKeySystems);
  return { ...trackFacts, protection: { ...known, encrypted: true, keySystems } };
}

function hex(b: Uint8Array, start: number, length: number): string {
  let s = "";
  for (let i = start; i < start + length && i < b.length; i++) s += b[i]!.toString(16).padStart(2, "0");
  return s;
}
