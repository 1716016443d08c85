/**
 * One file per image class the runner decodes outside libvips, plus the edge-recognition
 * cases (SVG with an XML prolog, audio-only MPEG-TS/PS). Made by the real ffmpeg (and heif-enc for HEIC) at
 * set-up; ffmpeg 5.1 has no PSD or DDS encoder, so those two are written here from their published layouts.
 * Every still shows one scene: 96x64, the left 70 % `main` red, the right 30 % `other` blue.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { makeMissing } from "./make-missing.ts";

export const scene = { width: 96, height: 64, main: [208, 48, 48] as const, other: [32, 80, 192] as const, split: 67 };

const lavfiScene = `color=c=0xd03030:s=${scene.width}x${scene.height},drawbox=x=${scene.split}:y=0:w=${scene.width - scene.split}:h=${scene.height}:color=0x2050c0:t=fill`;

/** The scene's RGB pixels, row by row. */
function scenePixels(): Uint8Array {
  const px = new Uint8Array(scene.width * scene.height * 3);
  for (let y = 0; y < scene.height; y++) {
    for (let x = 0; x < scene.width; x++) px.set(x < scene.split ? scene.main : scene.other, (y * scene.width + x) * 3);
  }
  return px;
}

/** Photoshop 3 file: header, empty colour-mode/resources/layer sections, raw planar RGB (Adobe PSD spec). */
export function writePsd(): Buffer {
  const { width, height } = scene;
  const header = Buffer.alloc(26 + 4 + 4 + 4 + 2);
  header.write("8BPS", 0, "latin1");
  header.writeUInt16BE(1, 4); // version
  header.writeUInt16BE(3, 12); // channels
  header.writeUInt32BE(height, 14);
  header.writeUInt32BE(width, 18);
  header.writeUInt16BE(8, 22); // bits per channel
  header.writeUInt16BE(3, 24); // RGB; the three section lengths and compression 0 (raw) stay zero
  const rgb = scenePixels();
  const planes = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) for (let c = 0; c < 3; c++) planes[c * width * height + i] = rgb[i * 3 + c]!;
  return Buffer.concat([header, planes]);
}

/** DirectDraw Surface, uncompressed 32-bit BGRA with channel masks (DDS_HEADER and DDS_PIXELFORMAT). */
export function writeDds(): Buffer {
  const { width, height } = scene;
  const h = Buffer.alloc(4 + 124);
  h.write("DDS ", 0, "latin1");
  const at = (o: number, v: number) => h.writeUInt32LE(v >>> 0, 4 + o);
  at(0, 124);
  at(4, 0x1 | 0x2 | 0x4 | 0x8 | 0x1000); // CAPS, HEIGHT, WIDTH, PITCH, PIXELFORMAT
  at(8, height);
  at(12, width);
  at(16, width * 4);
  at(72, 32); // pixel format size
  at(76, 0x40 | 0x1); // RGB with alpha
  at(84, 32);
  at(88, 0x00ff0000);
  at(92, 0x0000ff00);
  at(96, 0x000000ff);
  at(100, 0xff000000);
  at(104, 0x1000); // TEXTURE
  const rgb = scenePixels();
  const bgra = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) bgra.set([rgb[i * 3 + 2]!, rgb[i * 3 + 1]!, rgb[i * 3]!, 255], i * 4);
  return Buffer.concat([h, bgra]);
}

const svgWithProlog = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!-- Created by a drawing program; a long comment pushes the root element past the first kilobyte. ${"-".repeat(0)}${" padding".repeat(160)} -->
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" width="96" height="64" viewBox="0 0 96 64">
  <rect width="67" height="64" fill="#d03030"/><rect x="67" width="29" height="64" fill="#2050c0"/>
</svg>
`;

export interface FormatFixture {
  file: string;
  /** The MIME type the edge should name. */
  mime: string;
  category: "image" | "audio" | "video";
  /** Scene stills: the thumbnail is the scene at 96x64. */
  scene?: boolean;
}

export const formatFixtures: readonly FormatFixture[] = [
  { file: "fmt-jpeg2000.jp2", mime: "image/jp2", category: "image", scene: true },
  { file: "fmt-jpeg2000.j2k", mime: "image/j2c", category: "image", scene: true },
  { file: "fmt-netpbm.pbm", mime: "image/x-portable-bitmap", category: "image" },
  { file: "fmt-netpbm.pgm", mime: "image/x-portable-graymap", category: "image" },
  { file: "fmt-netpbm.ppm", mime: "image/x-portable-pixmap", category: "image", scene: true },
  { file: "fmt-netpbm.pam", mime: "image/x-portable-arbitrarymap", category: "image", scene: true },
  { file: "fmt-photoshop.psd", mime: "image/vnd.adobe.photoshop", category: "image", scene: true },
  { file: "fmt-targa.tga", mime: "image/x-tga", category: "image", scene: true },
  { file: "fmt-directdraw.dds", mime: "image/vnd-ms.dds", category: "image", scene: true },
  { file: "fmt-lossless.jpg", mime: "image/jpeg", category: "image", scene: true },
  { file: "fmt-still.heic", mime: "image/heic", category: "image", scene: true },
  { file: "fmt-huge.webp", mime: "image/webp", category: "image" },
  { file: "fmt-truncated.jpg", mime: "image/jpeg", category: "image" },
  { file: "fmt-prolog.svg", mime: "image/svg+xml", category: "image", scene: true },
  { file: "fmt-audio-only.ts", mime: "audio/mp2t", category: "audio" },
  { file: "fmt-aac-only.ts", mime: "audio/mp2t", category: "audio" },
  { file: "fmt-video.ts", mime: "video/mp2t", category: "video" },
  { file: "fmt-audio-only.mpg", mime: "audio/mpeg", category: "audio" },
  { file: "fmt-video.mpg", mime: "video/MP1S", category: "video" },
];

/** The 16000x9000 WebP (144 Mpx, over the runner's default 50 Mpx decode limit). */
export const hugeWebp = { width: 16000, height: 9000 };

function ffmpeg(args: string[]): void {
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

const still = (out: string, ...codec: string[]) => ffmpeg(["-f", "lavfi", "-i", lavfiScene, "-frames:v", "1", ...codec, out]);
const tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000"];
const motion = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1"];

const makers: Record<string, (out: string) => void> = {
  "fmt-jpeg2000.jp2": (out) => still(out, "-c:v", "jpeg2000", "-format", "jp2", "-f", "image2"),
  "fmt-jpeg2000.j2k": (out) => still(out, "-c:v", "jpeg2000", "-format", "j2k", "-f", "image2"),
  "fmt-netpbm.pbm": (out) => still(out, "-c:v", "pbm", "-f", "image2"),
  "fmt-netpbm.pgm": (out) => still(out, "-c:v", "pgm", "-f", "image2"),
  "fmt-netpbm.ppm": (out) => still(out, "-c:v", "ppm", "-f", "image2"),
  "fmt-netpbm.pam": (out) => still(out, "-c:v", "pam", "-f", "image2"),
  "fmt-photoshop.psd": (out) => writeFileSync(out, writePsd()),
  "fmt-targa.tga": (out) => still(out, "-c:v", "targa", "-f", "image2"),
  "fmt-directdraw.dds": (out) => writeFileSync(out, writeDds()),
  "fmt-lossless.jpg": (out) => still(out, "-c:v", "ljpeg", "-pix_fmt", "yuvj444p", "-strict", "-2", "-f", "image2"),
  "fmt-still.heic": (out) => {
    const png = `${out}.png`;
    still(png, "-f", "image2");
    execFileSync("heif-enc", ["-q", "90", "-o", out, png], { stdio: ["ignore", "ignore", "pipe"] });
  },
  "fmt-huge.webp": (out) => ffmpeg(["-f", "lavfi", "-i", `color=c=0xd03030:s=${hugeWebp.width}x${hugeWebp.height}`, "-frames:v", "1",
    "-c:v", "libwebp", "-quality", "5", "-compression_level", "0", "-f", "webp", out]),
  "fmt-truncated.jpg": (out) => {
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", "-q:v", "3", "-c:v", "mjpeg", "-f", "image2", `${out}.full`]);
    const full = readFileSync(`${out}.full`);
    // Cut in the middle of the scan: the top rows decode, the rest is missing.
    writeFileSync(out, full.subarray(0, Math.floor(full.length * 0.6)));
  },
  "fmt-prolog.svg": (out) => writeFileSync(out, svgWithProlog),
  "fmt-audio-only.ts": (out) => ffmpeg([...tone, "-c:a", "mp2", "-f", "mpegts", out]),
  "fmt-aac-only.ts": (out) => ffmpeg([...tone, "-c:a", "aac", "-f", "mpegts", out]),
  "fmt-video.ts": (out) => ffmpeg([...motion, ...tone, "-c:v", "mpeg2video", "-c:a", "mp2", "-f", "mpegts", out]),
  "fmt-audio-only.mpg": (out) => ffmpeg([...tone, "-c:a", "mp2", "-f", "mpeg", out]),
  "fmt-video.mpg": (out) => ffmpeg([...motion, ...tone, "-c:v", "mpeg1video", "-c:a", "mp2", "-f", "mpeg", out]),
};

/** Writes the missing fixtures into dir (cached across runs: each is written whole, then renamed). */
export function ensureFormatFixtures(dir: string): string {
  return makeMissing(dir, formatFixtures.map(({ file }) => file), (file, partial) => makers[file]!(partial));
}
