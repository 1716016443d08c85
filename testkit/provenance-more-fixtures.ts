/**
 * More files with capture and rights tags, made at set-up by ffmpeg, heif-enc and exiftool (tools nobody here
 * wrote), with exiftool's own reading of each as the reference:
 * - MP4s whose moov sits after the mdat (ffmpeg without faststart): QuickTime metadata keys exiftool wrote (exiftool
 *   always writes the moov first, so ffmpeg copies its keys back out with `use_metadata_tags`, moov last), and
 *   ©ART/cprt/©xyz as ffmpeg writes them. Ten minutes of a tiny picture make a moov of ~120 KB, past what the
 *   probe reads whole. Each is also served without an extension (no suffix read with the head: the user data is
 *   then past every byte the first inspection holds).
 * - HEIF and AVIF stills with EXIF and XMP written by exiftool.
 * - Ogg Vorbis, Opus and FLAC with Vorbis comments written by ffmpeg.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExiftoolReading } from "./provenance-fixtures.ts";
import { makeMissing } from "./make-missing.ts";

const quiet = { stdio: ["ignore", "ignore", "pipe"] as ["ignore", "ignore", "pipe"] };
const ffmpeg = (...args: string[]) => execFileSync("ffmpeg", ["-loglevel", "error", "-y", ...args], quiet);
const exiftool = (file: string, ...tags: string[]) => execFileSync("exiftool", ["-q", "-overwrite_original", ...tags, file], quiet);
const longTinyVideo = ["-f", "lavfi", "-i", "color=c=blue:size=32x32:rate=50", "-t", "600", "-c:v", "libx264", "-preset", "ultrafast", "-g", "500", "-pix_fmt", "yuv420p"];

interface Fixture { file: string; make: (out: string, dir: string) => void }

export const moovLastFixtures: Fixture[] = [
  {
    file: "moov-last-keys.mp4",
    make: (out, dir) => {
      const first = join(dir, `keys-first-${process.pid}.mp4`);
      ffmpeg(...longTinyVideo, "-movflags", "+faststart", first);
      exiftool(first, "-Keys:CreationDate=2024:07:08 09:10:11+01:00", "-Keys:GPSCoordinates=51.500729, -0.124625, 20",
        "-Keys:Make=Apple", "-Keys:Model=iPhone 15 Pro", "-Keys:Software=17.5", "-Keys:Author=Phone Owner", "-Keys:Copyright=(c) Phone Owner");
      ffmpeg("-i", first, "-map", "0", "-c", "copy", "-map_metadata", "0", "-movflags", "use_metadata_tags", "-f", "mp4", out);
      rmSync(first);
    },
  },
  {
    file: "moov-last-items.mp4",
    make: (out) => ffmpeg(...longTinyVideo, "-metadata", "creation_time=2021-03-04T05:06:07Z", "-metadata", "location=+40.6892-074.0445/",
      "-metadata", "artist=Mp4 Artist", "-metadata", "copyright=(c) Mp4 Artist", "-f", "mp4", out),
  },
];

const gps = ["-GPSLatitude=35.658581", "-GPSLatitudeRef=N", "-GPSLongitude=139.745433", "-GPSLongitudeRef=E"];

export const stillAndAudioFixtures: Fixture[] = [
  {
    file: "tagged.heic",
    make: (out, dir) => {
      const png = join(dir, `heic-src-${process.pid}.png`);
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=128x96", "-frames:v", "1", png);
      execFileSync("heif-enc", ["-q", "50", "-o", out, png], quiet);
      rmSync(png);
      exiftool(out, "-EXIF:DateTimeOriginal=2024:01:02 03:04:05", "-EXIF:OffsetTimeOriginal=+09:00", "-EXIF:Make=Apple", "-EXIF:Model=iPhone 14",
        ...gps, "-EXIF:Artist=Heic Author", "-EXIF:Copyright=(c) Heic Author", "-XMP-dc:Creator=Heic Author", "-XMP-dc:Rights=(c) Heic Author");
    },
  },
  {
    file: "tagged.avif",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=128x96", "-frames:v", "1", "-c:v", "libaom-av1", "-still-picture", "1", "-cpu-used", "8", out);
      exiftool(out, "-EXIF:DateTimeOriginal=2023:09:10 11:12:13", "-EXIF:Make=Google", "-EXIF:Model=Pixel 9", ...gps,
        "-EXIF:Artist=Avif Author", "-EXIF:Copyright=(c) Avif Author", "-XMP-dc:Creator=Avif Author", "-XMP-dc:Rights=(c) Avif Author");
    },
  },
  ...(["ogg", "opus", "flac"] as const).map((ext): Fixture => ({
    file: `tagged-vorbis.${ext}`,
    make: (out) => ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", ext === "ogg" ? "libvorbis" : ext === "opus" ? "libopus" : "flac",
      "-metadata", `artist=Vorbis ${ext} Artist`, "-metadata", `copyright=(c) Vorbis ${ext} Label`, "-metadata", "date=2019-08-09", out),
  })),
];

/** Files served under a name without extension too (no suffix read goes out with the head). */
export const extensionless = (file: string) => file.replace(/\.mp4$/, "");

export function ensureMoreProvenanceFixtures(dir: string): string {
  const fixtures = [...moovLastFixtures, ...stillAndAudioFixtures];
  makeMissing(dir, fixtures.map(({ file }) => file), (file, partial) => fixtures.find((f) => f.file === file)!.make(partial, dir));
  for (const { file } of moovLastFixtures) if (!existsSync(join(dir, extensionless(file)))) copyFileSync(join(dir, file), join(dir, extensionless(file)));
  return dir;
}

/** exiftool's own reading of a file, in the fields the service reports (QuickTime, EXIF/XMP and Vorbis groups). */
export function exiftoolReadingOf(dir: string, file: string): ExiftoolReading {
  const [r] = JSON.parse(execFileSync("exiftool", ["-j", "-n", "-G1", "-a", "-ee0", join(dir, file)], { encoding: "utf8" })) as Record<string, unknown>[];
  const pick = (...keys: string[]) => keys.map((k) => r![k]).find((v) => v !== undefined && v !== "");
  const str = (v: unknown) => (v === undefined ? undefined : String(v));
  const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : undefined);
  const quickTimeGps = str(pick("Keys:GPSCoordinates", "UserData:GPSCoordinates"))?.split(/\s+/).map(Number);
  const reading: ExiftoolReading = {
    takenAt: str(pick("Composite:SubSecDateTimeOriginal", "ExifIFD:DateTimeOriginal", "Keys:CreationDate", "QuickTime:CreateDate", "Vorbis:Date")),
    make: str(pick("IFD0:Make", "Keys:Make")),
    model: str(pick("IFD0:Model", "Keys:Model")),
    latitude: num(pick("Composite:GPSLatitude")) ?? quickTimeGps?.[0],
    longitude: num(pick("Composite:GPSLongitude")) ?? quickTimeGps?.[1],
    creator: str(pick("IFD0:Artist", "XMP-dc:Creator", "Keys:Author", "ItemList:Artist", "Vorbis:Artist")),
    copyright: str(pick("IFD0:Copyright", "XMP-dc:Rights", "Keys:Copyright", "UserData:Copyright", "ItemList:Copyright", "Vorbis:Copyright")),
  };
  return Object.fromEntries(Object.entries(reading).filter(([, v]) => v !== undefined && !Number.isNaN(v))) as ExiftoolReading;
}

/** Top-level box types of an MP4 in file order (the test checks that the moov really follows the mdat). */
export function topLevelBoxes(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let o = 0; o + 8 <= bytes.length && out.length < 64;) {
    const size = view.getUint32(o);
    out.push(String.fromCharCode(...bytes.subarray(o + 4, o + 8)));
    if (size < 8) break;
    o += size;
  }
  return out;
}
