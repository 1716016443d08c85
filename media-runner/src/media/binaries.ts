/**
 * Finds ffmpeg and ffprobe: FFMPEG_PATH/FFPROBE_PATH, then PATH, then (local development only) the binaries
 * packaged on npm (@ffmpeg-installer/ffmpeg, @ffprobe-installer/ffprobe). The packaged ffmpeg is a 2018
 * build with years of fixed parser vulnerabilities, so it never parses untrusted media in production or in
 * the container; locally it is a fallback with a warning.
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
  /** Whether the npm-packaged binaries may be used. Default: only when NODE_ENV is not "production". */
  allowPackaged?: boolean;
  /** Where the fallback warning goes. Default: console.warn. */
  warn?: (message: string) => void;
}

/** The Debian package to install instead of the packaged binaries. */
export const systemFfmpegPackage = "ffmpeg";

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

function isPackaged(file: string): boolean {
  return Object.values(packages).some((name) => file.includes(`${name}/`) || file.includes(name.replace("/", "\\")));
}

function find(name: keyof typeof packages, sources: BinarySources, allowPackaged: boolean, warn: (m: string) => void): string {
  const explicit = name === "ffmpeg" ? sources.ffmpegPath : sources.ffprobePath;
  const fix = `install the Debian package \`${systemFfmpegPackage}\` (apt-get install ${systemFfmpegPackage}) or set ${name.toUpperCase()}_PATH`;
  if (explicit !== undefined) {
    if (!isExecutable(explicit)) throw new Error(`${name.toUpperCase()}_PATH=${explicit} is not an executable file`);
    if (!allowPackaged && isPackaged(explicit)) throw new Error(`${name.toUpperCase()}_PATH points at the npm-packaged ${name}, refused in production: ${fix}`);
    return explicit;
  }
  const system = onPath(name, sources.pathVariable);
  if (system && (allowPackaged || !isPackaged(system))) return system;
  if (!allowPackaged) throw new Error(`${name} not found on PATH; the npm-packaged build is refused in production: ${fix}`);
  const fallback = packaged(name);
  if (!fallback) throw new Error(`${name} not found: ${fix}`);
  warn(`media-runner: using the npm-packaged ${name} (${fallback}), an old build, for local development only; ${fix}`);
  return fallback;
}

export function findBinaries(sources: BinarySources): Binaries {
  const allowPackaged = sources.allowPackaged ?? process.env.NODE_ENV !== "production";
  const warn = sources.warn ?? ((m: string) => console.warn(m));
  return {
    ffmpeg: find("ffmpeg", sources, allowPackaged, warn),
    ffprobe: find("ffprobe", sources, allowPackaged, warn),
  };
}
