/**
 * Writes a web page's facts into the record (the `page` stage, inline) and the media it names, still to be
 * inspected (`page:media`, finished by runPageMedia before the first answer; at once when there is none).
 */
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { finishStage } from "../record/stage-state.ts";
import type { HeadElements } from "../page/head-elements.ts";
import { pageFacts } from "../page/page-facts.ts";

export function writePageResults(record: ResourceRecord, head: HeadElements | undefined, pageUrl: string, durationMs: number): void {
  if (head) {
    const { page, media } = pageFacts(head, pageUrl);
    if (Object.keys(page).length > 0) record.results.page = page;
    if (media.length > 0) record.results.pageMediaUrls = media.map((m) => m.url);
  }
  finishStage(record, "page", { state: "done", durationMs, engine: "edge" });
  if (!record.results.pageMediaUrls) finishStage(record, "page:media", { state: "done", durationMs: 0, engine: "edge" });
}
