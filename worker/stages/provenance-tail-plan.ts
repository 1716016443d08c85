import type { RangeByteSource } from "../bytes/byte-source.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { moovBodyOf, planMetadataTail } from "../probe/mp4-metadata-tail.ts";

const isMp4 = (mime: string) => /^(video|audio)\/(mp4|quicktime|3gpp)$/.test(mime);

/**
 * For an MP4/MOV whose moov the probe walked sparsely (it lies past the head): the moov body to read capture and
 * rights from now, when the bytes after its tracks are already held (the suffix read sent with the head usually
 * holds them), else the movie header alone and the `tail` the later stage reads. Never a request here.
 */
export async function metadataTailOf(source: RangeByteSource, record: ResourceRecord): Promise<{ moov?: Uint8Array; tail?: { offset: number; length: number }; refused?: string }> {
  if ((record.category !== "video" && record.category !== "audio") || !isMp4(record.probe.mime)) return {};
  const plan = await planMetadataTail(source).catch(() => undefined);
  if (!plan) return {};
  if (plan.refused) return { ...(plan.mvhd ? { moov: plan.mvhd } : {}), refused: plan.refused };
  if (source.holds(plan.offset, plan.length)) return { moov: moovBodyOf(plan, await source.read(plan.offset, plan.length)) };
  return { ...(plan.mvhd ? { moov: plan.mvhd } : {}), tail: { offset: plan.offset, length: plan.length } };
}
