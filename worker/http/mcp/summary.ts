import type { InspectResponse } from "../../../shared/schemas/inspect.ts";
import { absoluteUrl } from "./stored-image.ts";

/**
 * A few lines a model reads before (or instead of) the structured answer: what the URL is, its size and length,
 * its codecs, where it plays, its thumbnail, and whether work is still running (and which job to poll).
 */
export function inspectionSummary(body: InspectResponse, baseUrl: string): string {
  const { identity, semantic, metadata, playback, preview } = body.data;
  const lines: string[] = [];
  const what = semantic?.semanticType ?? semantic?.kind;
  const head = [identity?.mime, what ? `(${what})` : undefined].filter(Boolean).join(" ");
  if (head) lines.push(semantic?.title ? `${head}: ${JSON.stringify(semantic.title)}` : head);

  const media = metadata?.video ?? metadata?.image ?? undefined;
  const facts = [
    media?.width && media.height ? `${media.width}x${media.height}` : undefined,
    (metadata?.video?.duration ?? metadata?.audio?.duration ?? metadata?.image?.duration)?.formatted,
    metadata?.video?.fps ? `${metadata.video.fps} fps` : undefined,
    playback?.codecs ?? metadata?.video?.codec ?? metadata?.audio?.codec,
    metadata?.size?.formatted,
  ].filter(Boolean);
  if (facts.length > 0) lines.push(facts.join(", "));

  if (playback?.compatibility) {
    const byVerdict = new Map<string, string[]>();
    for (const [browser, { verdict }] of Object.entries(playback.compatibility)) byVerdict.set(verdict, [...(byVerdict.get(verdict) ?? []), browser]);
    lines.push(`Plays: ${[...byVerdict].map(([verdict, names]) => `${verdict} in ${names.join(", ")}`).join("; ")}`);
  } else if (playback) {
    lines.push(`Render with <${playback.component}> (${playback.strategy})`);
  }
  if (preview?.thumbnail) lines.push(`Thumbnail: ${absoluteUrl(preview.thumbnail.url, baseUrl)}`);
  if (body.processing.status !== "complete") {
    const pending = body.processing.pendingStages.join(", ");
    lines.push(body.job
      ? `Still running: ${pending}. Call get_inspection_job with id ${body.job.id} for the rest, or inspect again with profile full.`
      : `Still running: ${pending}.`);
  }
  return lines.join("\n");
}
