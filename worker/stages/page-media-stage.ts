/**
 * The `page:media` stage: the media a page names, inspected as its own resource through `inspect` (the
 * resource's Durable Object: same SSRF checks, same cache), reported as `data.page.media`. The page's og:image
 * gets its dimensions the same way when the page does not declare them.
 */
import type { PageMedia } from "../../shared/shapes/streaming-page.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { finishStage, pendingStages } from "../record/stage-state.ts";

export type NestedReply = { ok: true; record: ResourceRecord } | { ok: false; reason: string };
/** Inspects another URL as its own resource (never running its page:media stage: no page-to-page chains). */
export type InspectNested = (url: string, profile: "fast" | "full") => Promise<NestedReply>;

/**
 * Whether a nested inspection (media a page names) has everything it will get. Its own page:media never runs
 * (no page-to-page chains), so when the named URL is itself a page, that stage stays pending: waiting for it
 * would hold the naming page's answer until the `full` wait runs out.
 */
export function nestedInspectionDone(record: ResourceRecord): boolean {
  return pendingStages(record).every((stage) => stage === "page:media");
}

/** Named media tried, best first (the first that is media wins). */
export const maxPageMediaInspections = 2;

export async function runPageMediaStage(record: ResourceRecord, inspect: InspectNested, profile: "fast" | "full"): Promise<void> {
  const started = performance.now();
  await measureImage(record, inspect);
  let reason = "the page names no inspectable media";
  for (const url of (record.results.pageMediaUrls ?? []).slice(0, maxPageMediaInspections)) {
    const reply = await inspect(url, profile);
    if (!reply.ok) {
      reason = reply.reason;
      continue;
    }
    const media = pageMediaOf(url, reply.record);
    if (!media) {
      reason = `the named URL is not a media file (${reply.record.probe.mime})`;
      if (reply.record.category === "webpage") reason += ": a web page, whose own media is not followed (no page-to-page chains)";
      continue;
    }
    record.results.pageMedia = media;
    finishStage(record, "page:media", { state: "done", durationMs: performance.now() - started, engine: "edge" });
    return;
  }
  finishStage(record, "page:media", { state: "failed", error: reason, durationMs: performance.now() - started, engine: "edge" });
}

function pageMediaOf(url: string, media: ResourceRecord): PageMedia | undefined {
  const category = media.category;
  if (category !== "video" && category !== "audio" && category !== "image") return undefined;
  const facts = category === "video" ? media.results.video : category === "audio" ? media.results.audio : media.results.image;
  const duration = facts && "duration" in facts ? facts.duration : undefined;
  const width = facts && "width" in facts ? facts.width : undefined;
  const height = facts && "height" in facts ? facts.height : undefined;
  return {
    url,
    mime: media.probe.mime,
    semanticType: category,
    ...(duration ? { duration } : {}),
    ...(width ? { width } : {}),
    ...(height ? { height } : {}),
    ...(media.results.thumbnail ? { thumbnail: media.results.thumbnail } : {}),
  };
}

/** og:image dimensions from the image's own header, when the page does not state them (best effort). */
async function measureImage(record: ResourceRecord, inspect: InspectNested): Promise<void> {
  const page = record.results.page;
  if (!page?.image || (page.imageWidth && page.imageHeight)) return;
  const reply = await inspect(page.image, "fast").catch(() => undefined);
  const image = reply?.ok ? reply.record.results.image : undefined;
  if (image?.width && image.height) {
    page.imageWidth = image.width;
    page.imageHeight = image.height;
  }
}
