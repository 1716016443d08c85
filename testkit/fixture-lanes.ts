/**
 * Generated fixtures made a few at a time. The fixture builders are synchronous (execFileSync of ffmpeg,
 * ImageMagick, exiftool), so called from one process they ran one after another; each lane here runs in a child
 * process of its own (testkit/fixture-lane-child.ts), at most `concurrency` at once. A lane is a named function
 * of a module's `lanes` table, given the repository root; a lane must not read or write a file another lane writes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mapLimit } from "./ffprobe-reference.ts";

const root = join(import.meta.dirname, "..");
const child = join(import.meta.dirname, "fixture-lane-child.ts");

export type Lanes = Record<string, (root: string) => unknown>;

/**
 * Runs each named lane of `module` (a path from the repository root) in a child process, `concurrency` at once.
 * Skipped when the lanes last ran to the end with the same generators (a digest of testkit/'s sources): starting
 * the children costs seconds even when every file is there. The callers' own builders still fill any gap.
 */
export async function runFixtureLanes(module: string, names: string[], concurrency: number): Promise<void> {
  const stamp = join(root, "test", ".fixtures", `lanes-${module.replace(/\W+/g, "-")}.sha256`);
  const digest = generatorsDigest(names);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === digest) return;
  await mapLimit(names, concurrency, (name) => runLane(module, name));
  mkdirSync(join(root, "test", ".fixtures"), { recursive: true });
  writeFileSync(stamp, digest);
}

/** SHA-256 of the lane names and of every source file under testkit/. */
function generatorsDigest(names: string[]): string {
  const hash = createHash("sha256").update(names.join("\n"));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) hash.update(name).update(readFileSync(path));
    }
  };
  walk(join(root, "testkit"));
  return hash.digest("hex");
}

function runLane(module: string, name: string): Promise<void> {
  return runTsChild([child, join(root, module), name, root], `fixture lane ${name} of ${module}`).exited;
}

/**
 * A TypeScript script in a Node child process of its own (through tsx), from the repository root. `exited`
 * rejects with the end of its error output when it exits with anything but 0.
 */
export function runTsChild(args: string[], what: string): { child: ChildProcess; exited: Promise<void> } {
  const proc = spawn(process.execPath, ["--import", "tsx", ...args], { cwd: root, stdio: ["ignore", "inherit", "pipe"] });
  const exited = new Promise<void>((resolve, reject) => {
    const errors: Buffer[] = [];
    proc.stderr!.on("data", (d: Buffer) => errors.push(d));
    proc.once("error", reject);
    proc.once("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${what} exited ${code}:\n${Buffer.concat(errors).toString().slice(-4000)}`));
    });
  });
  return { child: proc, exited };
}
