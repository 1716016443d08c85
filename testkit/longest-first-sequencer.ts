/**
 * Test file order: within a group (sequence.groupOrder), the longest files first, so the short ones fill the other
 * core at the end instead of one long file running alone (longest-processing-time-first scheduling). Vitest's own
 * order runs a group's projects one after another and, on a clean clone with no cached durations, a project's
 * largest files first; a Worker group file is small (its cases are imported), so the longest files ran last.
 * The seconds come from test/file-seconds.json (`npm run test:file-seconds` rewrites it); a file not in it runs
 * first, as Vitest runs unknown files first.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const root = join(import.meta.dirname, "..");
export const fileSecondsPath = join(root, "test", "file-seconds.json");

/** test/file-seconds.json, or nothing when it is missing or unreadable. */
export function knownSeconds(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(fileSecondsPath, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  private readonly seconds = knownSeconds();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const expected = (spec: TestSpecification) => this.seconds[relative(root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) =>
      a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder
      || expected(b) - expected(a)
      || (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
  }
}
