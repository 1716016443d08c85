import { parseBuffer } from "music-metadata";
import type { Capture, Rights } from "../../shared/shapes/provenance.ts";
import { metadataParserTimeoutMs } from "../config/limits.ts";
import { compact, exifDateTime, text } from "./capture-rights.ts";
import { withDeadline } from "./deadline.ts";

export interface AudioDeclarations {
  capture?: Capture;
  rights?: Rights;
  problem?: string;
}

/**
 * ID3v2 (TPE1 artist, TCOP copyright, TDRC/TYER date), Vorbis comments (ARTIST, COPYRIGHT, LICENSE, DATE), MP4
 * and other tags music-metadata reads, from bytes already in hand (the head: ID3v2 and Vorbis comments sit
 * there). A tag cut off by the end of the bytes leaves its facts out.
 */
export async function readAudioTags(mime: string, bytes: Uint8Array): Promise<AudioDeclarations> {
  try {
    const { common } = await withDeadline(
      parseBuffer(bytes, { mimeType: mime, size: bytes.length }, { skipCovers: true, duration: false, skipPostHeaders: true }),
      metadataParserTimeoutMs, "music-metadata");
    const license = text(common.license);
    return compact<AudioDeclarations>({
      capture: compact<Capture>({ takenAt: tagDate(common.date) }),
      rights: compact<Rights>({
        creator: text(common.artist) ?? text(common.artists),
        copyright: text(common.copyright),
        license: license && /^https?:\/\/\S+$/i.test(license) ? license : undefined,
      }),
    }) ?? {};
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // A container music-metadata does not read has no tags it could give: not a fault of the file.
    if (/not supported|determine audio format|unknown file/i.test(reason)) return {};
    return { problem: `audio tags: ${reason}` };
  }
}

/** The tag's date as ISO 8601: a full date-time, or the calendar date it gives ("2024-05-06"); a bare year stays out. */
function tagDate(value: string | undefined): string | undefined {
  const s = text(value);
  if (!s) return undefined;
  const full = exifDateTime(s.replace(" ", "T"), undefined);
  if (full) return full;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return day && !Number.isNaN(Date.parse(s)) ? s : undefined;
}
