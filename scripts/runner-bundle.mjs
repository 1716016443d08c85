// The media runner as `npm start` runs it: compiled JavaScript, as the runner image runs it (media-runner/Dockerfile),
// rather than TypeScript through tsx. tsx's loader and esbuild service cost about 1.2 CPU-s and 47 MiB per runner
// start, and `npm start` starts up to eight runners.
//
// esbuild bundles the runner's own code and the shared code it imports; its packages stay imports resolved at run
// time from media-runner/node_modules, which is why the output lives under media-runner/. Two entries, side by side:
// the server and the decoder thread's entry, which media/decoder-thread.ts loads from beside itself.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

/** Bundles of older sources are removed once unused this long (a running service may still load its thread entry). */
const staleBundleMs = 24 * 60 * 60 * 1000;

/**
 * Builds the runner (when its sources changed since the last build) and returns the server's path. The folder is
 * named by a hash of what was built, so `npm start`s running at once from one checkout share it, and one still
 * running on older sources keeps its own.
 */
export async function runnerBundle(root) {
  const runnerDir = join(root, "media-runner");
  const result = await build({
    absWorkingDir: runnerDir,
    entryPoints: { server: "src/server.ts", "decoder-thread-main": "src/media/decoder-thread-main.ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outdir: "out",
    write: false,
    logLevel: "warning",
  });
  const hash = createHash("sha256");
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const buildsDir = join(runnerDir, ".build");
  const target = join(buildsDir, hash.digest("hex").slice(0, 16));
  if (!existsSync(join(target, "server.js"))) {
    // Written aside and renamed: another start sees the whole folder or none of it.
    const aside = `${target}.${process.pid}.tmp`;
    for (const file of result.outputFiles) {
      const path = join(aside, file.path.slice(join(runnerDir, "out").length + 1));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.contents);
    }
    try {
      renameSync(aside, target);
    } catch (error) {
      // Another start renamed the same build first.
      rmSync(aside, { recursive: true, force: true });
      if (!existsSync(join(target, "server.js"))) throw error;
    }
  }
  // Its age is the time since a start last used it.
  const now = new Date();
  utimesSync(target, now, now);
  removeStaleBundles(buildsDir, target);
  return join(target, "server.js");
}

function removeStaleBundles(buildsDir, current) {
  const now = Date.now();
  for (const name of readdirSync(buildsDir)) {
    const path = join(buildsDir, name);
    if (path === current) continue;
    try {
      if (now - statSync(path).mtimeMs > staleBundleMs) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another start meanwhile.
    }
  }
}
