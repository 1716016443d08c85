import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";

/**
 * Makes each file of `files` that `dir` lacks: written whole under a name of this process's own, then renamed, so a
 * file interrupted half-way, or made by two set-ups at once, is never read as whole. Returns `dir`.
 */
export function makeMissing<F extends string>(dir: string, files: Iterable<F>, make: (file: F, partial: string) => void): string {
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    const target = join(dir, file);
    if (existsSync(target)) continue;
    const partial = join(dir, `partial-${process.pid}-${file}`);
    make(file, partial);
    renameSync(partial, target);
  }
  return dir;
}
