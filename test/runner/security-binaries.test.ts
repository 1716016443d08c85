// Issue 15, finding 13: the npm-packaged 2018 ffmpeg never parses untrusted media outside local development.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findBinaries } from "../../media-runner/src/media/binaries.ts";
import { loadConfig } from "../../media-runner/src/config.ts";

function fakeBinaries(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(join(dir, name), "#!/bin/sh\nexit 0\n");
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe("ffmpeg binaries", () => {
  const root = mkdtempSync(join(tmpdir(), "bins-"));
  const system = fakeBinaries(join(root, "usr-bin"), ["ffmpeg", "ffprobe"]);
  const empty = fakeBinaries(join(root, "empty"), []);
  const packagedDir = fakeBinaries(join(root, "node_modules", "@ffmpeg-installer", "ffmpeg"), ["ffmpeg"]);

  it("production takes ffmpeg from PATH", () => {
    expect(findBinaries({ pathVariable: system, allowPackaged: false })).toEqual({ ffmpeg: join(system, "ffmpeg"), ffprobe: join(system, "ffprobe") });
  });

  it("production without a system ffmpeg refuses to start, naming the Debian package", () => {
    expect(() => findBinaries({ pathVariable: empty, allowPackaged: false })).toThrow(/refused in production.*Debian package `ffmpeg`/);
  });

  it("production refuses FFMPEG_PATH pointing at the packaged build", () => {
    expect(() => findBinaries({ ffmpegPath: join(packagedDir, "ffmpeg"), pathVariable: system, allowPackaged: false })).toThrow(/npm-packaged ffmpeg, refused/);
  });

  it("NODE_ENV=production (the container image) is the default policy", () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = "production";
    try {
      expect(() => findBinaries({ pathVariable: empty })).toThrow(/refused in production/);
    } finally {
      process.env.NODE_ENV = before;
    }
  });

  it("local development may fall back to the packaged build, with a warning naming the Debian package", () => {
    const warnings: string[] = [];
    let found: { ffmpeg: string } | undefined;
    try {
      found = findBinaries({ pathVariable: empty, allowPackaged: true, warn: (m) => warnings.push(m) });
    } catch (error) {
      // The packaged optional dependencies may be absent on this machine; then the error names the fix.
      expect(String(error)).toMatch(/Debian package `ffmpeg`/);
      return;
    }
    expect(found.ffmpeg).toMatch(/@ffmpeg-installer/);
    expect(warnings.join("\n")).toMatch(/npm-packaged ffmpeg.*Debian package `ffmpeg`/);
  });
});

describe("runner SSRF_ALLOWLIST", () => {
  const base = { RUNNER_TOKEN: "0123456789abcdef0123" };
  it("is refused in production (NODE_ENV=production)", () => {
    expect(() => loadConfig({ ...base, NODE_ENV: "production", SSRF_ALLOWLIST: "127.0.0.1:8080" })).toThrow(/must be empty in production/);
    expect(loadConfig({ ...base, NODE_ENV: "production" }).production).toBe(true);
  });
  it("refuses malformed entries", () => {
    for (const entry of ["127.0.0.1/8/32", "::ffff:127.0.0.1/24", "fe80::1%eth0"]) {
      expect(() => loadConfig({ ...base, SSRF_ALLOWLIST: entry })).toThrow(/SSRF_ALLOWLIST/);
    }
  });
});
