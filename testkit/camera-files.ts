/**
 * Real photos from cameras and phones (Canon, Nikon, Sony, Apple, Xiaomi, Nokia), shipped as test images inside the
 * npm packages of four EXIF readers (MIT): exif (test/), exif-parser (test/), jpeg-exif (test/) and exif-js
 * (example/). They are exact-pinned devDependencies for these files only. Some carry GPS, one an author, several
 * nothing at all; exiftool (a tool nobody here wrote) reads each as the reference. A missing folder is an error,
 * never a skip: a dependency update that drops its images must be noticed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { exiftoolReadingOf } from "./provenance-more-fixtures.ts";
import type { ExiftoolReading } from "./provenance-fixtures.ts";

/** Each package's folder of images, under node_modules. */
export const cameraPackages = {
  exif: ["exif", "test"],
  "exif-parser": ["exif-parser", "test"],
  "jpeg-exif": ["jpeg-exif", "test"],
  "exif-js": ["exif-js", "example"],
} as const;

export interface CameraFile extends ExiftoolReading {
  /** Served as /media/camera/<path>. */
  path: string;
  /** exiftool found a JUMBF (C2PA) block. */
  c2pa: boolean;
}

/**
 * Links each package folder into `fixturesDir`/camera (so the loopback origin serves /media/camera/<package>/<file>)
 * and returns that folder with exiftool's reading of every JPEG in them.
 */
export function prepareCameraFiles(repoRoot: string, fixturesDir: string): { serveDir: string; files: CameraFile[] } {
  const dir = join(fixturesDir, "camera");
  mkdirSync(dir, { recursive: true });
  const files: CameraFile[] = [];
  for (const [name, parts] of Object.entries(cameraPackages)) {
    const source = join(repoRoot, "node_modules", ...parts);
    if (!existsSync(source)) throw new Error(`camera files missing: ${source} (did a dependency update drop its test images?)`);
    const link = join(dir, name);
    if (isLink(link)) rmSync(link, { force: true });
    symlinkSync(source, link, "dir");
    const jpegs = readdirSync(source).filter((f) => /\.jpe?g$/i.test(f)).sort();
    const jumbf = jumbfFiles(source, jpegs);
    for (const file of jpegs) files.push({ path: `${name}/${file}`, c2pa: jumbf.has(file), ...exiftoolReadingOf(source, file) });
  }
  return { serveDir: fixturesDir, files };
}

/** The files exiftool finds a JUMBF block in (one exiftool run for the folder). */
function jumbfFiles(dir: string, files: string[]): Set<string> {
  const out = execFileSync("exiftool", ["-j", "-G1", "-JUMBF:all", ...files], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const rows = out.trim() === "" ? [] : (JSON.parse(out) as Record<string, unknown>[]);
  return new Set(rows.filter((r) => Object.keys(r).some((k) => k.startsWith("JUMBF:"))).map((r) => String(r.SourceFile)));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
