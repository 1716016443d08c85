/**
 * Writes each test file's duration (seconds, one decimal) to test/file-seconds.json at the end of a run, for the
 * longest-first order (testkit/longest-first-sequencer.ts). Used by `npm run test:file-seconds`. Files the run did
 * not include keep their entry, and entries of files that no longer exist are dropped, so a partial run updates
 * only what it measured.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { fileSecondsPath, knownSeconds } from "./longest-first-sequencer.ts";

const root = join(import.meta.dirname, "..");

export default class FileSecondsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const known = knownSeconds();
    for (const m of modules) known[relative(root, m.moduleId)] = Math.round(m.diagnostic().duration / 100) / 10;
    const kept = Object.entries(known).filter(([file]) => existsSync(join(root, file))).sort(([a], [b]) => (a < b ? -1 : 1));
    writeFileSync(fileSecondsPath, JSON.stringify(Object.fromEntries(kept), null, 2) + "\n");
  }
}
