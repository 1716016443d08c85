/**
 * Finds ffmpeg and ffprobe: FFMPEG_PATH/FFPROBE_PATH, then PATH, then the binaries packaged on npm
 * (@ffmpeg-installer/ffmpeg, @ffprobe-installer/ffprobe, optional dependencies), so a fresh machine needs
 * no system ffmpeg.
 */
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";

export interface Binaries {
  ffmpeg: string;
  ffprobe: string;
}

export interface BinarySources {
  ffmpegPath?: string;
  ffprobePath?: string;
  pathVariable?: string;
}

const packages = { ffmpeg: "@ffmpeg-installer/ffmpeg", ffprobe: "@ffprobe-installer/ffprobe" } as const;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (dir !== "" && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function packaged(name: keyof typeof packages): string | undefined {
  try {
    const path = (createRequire(import.meta.url)(packages[name]) as { path?: string }).path;
    return path && isExecutable(path) ? path : undefined;
  } catch {
    return undefined; // optional dependency not installed, or no build for this platform
  }
}

function find(name: keyof typeof packages, explicit: string | undefined, pathVariable: string | undefined): string {
  if (explicit !== undefined) {
    if (!isExecutable(explicit)) throw new Error(`${name.toUpperCase()}_PATH=${explicit} is not an executable file`);
    return explicit;
  }
  const found = onPath(name, pathVariable) ?? packaged(name);
  if (!found) {
    throw new Error(`${name} not found: set ${name.toUpperCase()}_PATH, put it on PATH, or install ${packages[name]}`);
  }
  return found;
}

export function findBinaries(sources: BinarySources): Binaries {
  return {
    ffmpeg: find("ffmpeg", sources.ffmpegPath, sources.pathVariable),
    ffprobe: find("ffprobe", sources.ffprobePath, sources.pathVariable),
  };
}
