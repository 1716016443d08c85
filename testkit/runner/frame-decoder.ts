/**
 * Test support for the runner's frame decoder processes (media-runner/src/media/engine-worker/): bytes from a
 * local file as a decoder's ByteReader, a process's open sockets, and an ffmpeg that counts its runs.
 */
import { chmodSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ByteReader } from "../../media-runner/src/media/engine-worker/decoder-process.ts";

/** A reader over a file's bytes, counting the reads it answered. */
export function fileReader(path: string): { read: ByteReader; size: number; reads: () => number } {
  const bytes = readFileSync(path);
  let reads = 0;
  return {
    size: bytes.length,
    reads: () => reads,
    read: (offset, length) => {
      reads++;
      return Promise.resolve(bytes.subarray(offset, Math.min(offset + length, bytes.length)));
    },
  };
}

/** Socket inodes listed in one of /proc/net's tables (the caller's network namespace, the decoder's too). */
function inodesIn(table: string, column: number): Set<string> {
  try {
    return new Set(readFileSync(`/proc/net/${table}`, "utf8").split("\n").slice(1).map((line) => line.trim().split(/\s+/)[column] ?? "").filter(Boolean));
  } catch {
    return new Set();
  }
}

/**
 * The process's open sockets by family: `unix` (its IPC channel and its stderr pipe: libuv makes child stdio
 * pipes as Unix socket pairs), `inet` (TCP or UDP, v4 or v6) or `other`.
 */
export function socketsOf(pid: number): ("unix" | "inet" | "other")[] {
  const unix = inodesIn("unix", 6);
  const inet = ["tcp", "tcp6", "udp", "udp6"].map((t) => inodesIn(t, 9));
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return []; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (!inode) return [];
    return [unix.has(inode) ? "unix" : inet.some((set) => set.has(inode)) ? "inet" : "other"];
  });
}

/** An ffmpeg wrapper that appends a line to `log` per run, then runs the real ffmpeg (for FFMPEG_PATH). */
export function countingFfmpeg(): { path: string; runs: () => number } {
  const dir = mkdtempSync(join(tmpdir(), "counting-ffmpeg-"));
  const log = join(dir, "runs.log");
  const path = join(dir, "ffmpeg");
  writeFileSync(log, "");
  writeFileSync(path, `#!/bin/sh\necho run >> '${log}'\nexec ffmpeg "$@"\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => readFileSync(log, "utf8").split("\n").filter(Boolean).length };
}
