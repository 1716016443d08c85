/**
 * Writes each test file's duration (seconds, one decimal) to test/file-seconds.json at the end of a full run, for the
 * longest-first order (testkit/longest-first-sequencer.ts). Used by `npm run test:file-seconds`.
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { fileSecondsPath } from "./longest-first-sequencer.ts";

const root = join(import.meta.dirname, "..");

export default class FileSecondsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const seconds = modules
      .map((m) => [relative(root, m.moduleId), Math.round(m.diagnostic().duration / 100) / 10] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    writeFileSync(fileSecondsPath, JSON.stringify(Object.fromEntries(seconds), null, 2) + "\n");
  }
}
