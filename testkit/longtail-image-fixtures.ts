/**
 * Damaged and less common pictures, made at set-up with ffmpeg, ImageMagick and exiftool (then cut or patched
 * here where the damage is the point). Each shows the shared scene (image-format-fixtures.ts: 96x64, red left,
 * blue right) unless `scene` is false; the photo-like ones are 320x240 testsrc2 frames.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { scene } from "./image-format-fixtures.ts";
import { bc6hSolidBlock, bc7SolidBlock, dx10Dds, dxgi, oldStyleJpegTablesTiff, oldStyleJpegTiff, textureBlocks } from "./texture-fixtures.ts";
import { makeMissing } from "./make-missing.ts";

export interface LongtailFixture {
  file: string;
  width: number;
  height: number;
  /** The scene is in the picture (left red, right blue); false for a photo-like test frame or a cut scan. */
  scene: boolean;
  hasAlpha?: boolean;
  /** The colour space its header names, when not sRGB (an embedded profile's). */
  colorSpace?: string;
}

const photo = { width: 320, height: 240, scene: false } as const;
const still = { width: scene.width, height: scene.height, scene: true } as const;

export const longtailFixtures: readonly LongtailFixture[] = [
  { file: "lt-junk-before-soi.jpg", ...photo },
  { file: "lt-exif-overrun.jpg", ...photo },
  { file: "lt-app14-truncated.jpg", ...photo },
  { file: "lt-truncated-end.jpg", ...photo },
  { file: "lt-broken-idat.png", ...photo },
  { file: "lt-truncated-iend.png", ...photo },
  { file: "lt-junk-before-sig.png", ...photo },
  { file: "lt-bottom-left.tga", ...still },
  { file: "lt-rgba.tga", ...still, hasAlpha: true },
  { file: "lt-16bit.tga", ...still },
  { file: "lt-tiled16-lzw.tif", ...still },
  { file: "lt-planar8-lzw.tif", ...still },
  { file: "lt-planar16-lzw.tif", ...still },
  { file: "lt-rgba.psd", ...still, hasAlpha: true },
  { file: "lt-float.pfm", ...still },
  // ICNS members have the size their type names (ic07: 128x128); the largest one is the picture.
  { file: "lt-icon.icns", width: 128, height: 128, scene: false, hasAlpha: true },
  { file: "lt-ultrahdr.jpg", ...still },
  // Formats Debian's ffmpeg and libvips do not decode: BPTC textures, 12-bit RGB TIFF, old-style-JPEG TIFF.
  { file: "lt-bc7.dds", ...still, hasAlpha: true },
  { file: "lt-bc6h.dds", ...still },
  // Cut after 10 of its 16 block rows: the top rows decode, the rest stay black.
  { file: "lt-bc7-cut.dds", ...still, scene: false, hasAlpha: true },
  { file: "lt-12bit.tif", ...still },
  { file: "lt-12bit-lzw.tif", ...still },
  { file: "lt-12bit-planar-zip.tif", ...still },
  { file: "lt-ojpeg.tif", ...still },
  { file: "lt-ojpeg-tables.tif", ...still },
  { file: "lt-icc-p3.jp2", ...still, colorSpace: "display-p3" },
];

/** A marker segment: FF, marker, big-endian length (payload + 2), payload. */
const segment = (marker: number, payload: Buffer) => {
  const header = Buffer.from([0xff, marker, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([header, payload]);
};
const xmpSegment = (xmp: string) => segment(0xe1, Buffer.concat([Buffer.from("http://ns.adobe.com/xap/1.0/\0", "latin1"), Buffer.from(xmp)]));
const rdf = (inner: string) => `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">${inner}</rdf:RDF></x:xmpmeta>`;

/** The MPF APP2 segment (CIPA DC-007): a big-endian TIFF header, an index IFD, two MP entries (primary, gain map). */
function mpfSegment(primaryLength: number, gainLength: number, gainOffset: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 3 * 12 + 4 + 32);
  tiff.write("MM\0*", 0, "latin1");
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(3, 8);
  const entry = (i: number, tag: number, type: number, count: number, value: Buffer) => {
    const at = 10 + i * 12;
    tiff.writeUInt16BE(tag, at);
    tiff.writeUInt16BE(type, at + 2);
    tiff.writeUInt32BE(count, at + 4);
    value.copy(tiff, at + 8);
  };
  const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; };
  entry(0, 0xb000, 7, 4, Buffer.from("0100"));
  entry(1, 0xb001, 4, 1, u32(2));
  entry(2, 0xb002, 7, 32, u32(8 + 2 + 36 + 4));
  const entries = 8 + 2 + 36 + 4;
  tiff.writeUInt32BE(0x030000, entries); // primary image, JPEG
  tiff.writeUInt32BE(primaryLength, entries + 4);
  tiff.writeUInt32BE(gainLength, entries + 16 + 4);
  tiff.writeUInt32BE(gainOffset, entries + 16 + 8);
  return segment(0xe2, Buffer.concat([Buffer.from("MPF\0", "latin1"), tiff]));
}

/**
 * An Ultra HDR JPEG as Android writes it: the primary picture announces a gain map (hdrgm XMP with a container
 * directory, and the MPF index), and the gain-map JPEG with its hdrgm parameters follows the primary's EOI.
 */
function writeUltraHdr(primary: Buffer, gainMap: Buffer): Buffer {
  const gain = Buffer.concat([gainMap.subarray(0, 2), xmpSegment(rdf('<rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" '
    + 'hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2" hdrgm:Gamma="1" hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" '
    + 'hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2" hdrgm:BaseRenditionIsHDR="False"/>')), gainMap.subarray(2)]);
  const xmp = xmpSegment(rdf('<rdf:Description xmlns:Container="http://ns.google.com/photos/1.0/container/" '
    + 'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0">'
    + '<Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
    + `<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="${gain.length}"/></rdf:li>`
    + "</rdf:Seq></Container:Directory></rdf:Description>"));
  const primaryLength = primary.length + xmp.length + mpfSegment(0, 0, 0).length;
  // MP entry offsets count from the MPF TIFF header: SOI, the XMP segment, the APP2 header and "MPF\0" precede it.
  const tiffStart = 2 + xmp.length + 4 + 4;
  const mpf = mpfSegment(primaryLength, gain.length, primaryLength - tiffStart);
  return Buffer.concat([primary.subarray(0, 2), xmp, mpf, primary.subarray(2), gain]);
}

const runnerSharp = createRequire(new URL("../media-runner/package.json", import.meta.url)).resolve("sharp");

/** The JP2 with its colour specification box replaced by one that carries `icc` (method 2, restricted ICC). */
function withIccColourBox(jp2: Buffer, icc: Buffer): Buffer {
  const header = jp2.indexOf("jp2h", 0, "latin1") - 4;
  const headerEnd = header + jp2.readUInt32BE(header);
  const colr = jp2.indexOf("colr", header, "latin1") - 4;
  const box = Buffer.alloc(11);
  box.writeUInt32BE(11 + icc.length);
  box.write("colr", 4, "latin1");
  box[8] = 2;
  const inner = Buffer.concat([jp2.subarray(header + 8, colr), box, icc, jp2.subarray(colr + jp2.readUInt32BE(colr), headerEnd)]);
  const size = Buffer.alloc(8);
  size.writeUInt32BE(8 + inner.length);
  size.write("jp2h", 4, "latin1");
  return Buffer.concat([jp2.subarray(0, header), size, inner, jp2.subarray(headerEnd)]);
}

const quiet: { stdio: ["ignore", "ignore", "pipe"] } = { stdio: ["ignore", "ignore", "pipe"] };
const ffmpeg = (args: string[]) => execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], quiet);
const magick = (args: string[]) => execFileSync("convert", args, quiet);
const sceneArgs = ["-size", `${scene.width}x${scene.height}`, "xc:#d03030", "-fill", "#2050c0", "-draw",
  `rectangle ${scene.split},0 ${scene.width - 1},${scene.height - 1}`];
const photoJpeg = (out: string) =>
  ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", "-q:v", "3", "-c:v", "mjpeg", "-f", "image2", out]);
const photoPng = (out: string) => ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", "-f", "image2", "-c:v", "png", out]);

/** The offset of the first JPEG marker segment `marker` (after SOI). */
function segmentAt(jpeg: Buffer, marker: number): number {
  for (let o = 2; o + 4 <= jpeg.length;) {
    if (jpeg[o + 1] === marker) return o;
    o += 2 + jpeg.readUInt16BE(o + 2);
  }
  throw new Error(`no marker ${marker.toString(16)}`);
}

const makers: Record<string, (out: string) => void> = {
  "lt-junk-before-soi.jpg": (out) => {
    photoJpeg(`${out}.src.jpg`);
    writeFileSync(out, Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\nX-Junk: yes\r\n\r\n"), readFileSync(`${out}.src.jpg`)]));
  },
  "lt-exif-overrun.jpg": (out) => {
    // An EXIF APP1 whose length claims 40 bytes more than it holds: the reader skips into the quantisation table.
    photoJpeg(`${out}.src.jpg`);
    execFileSync("exiftool", ["-q", "-overwrite_original", "-Artist=longtail", "-Copyright=a test picture", `${out}.src.jpg`], quiet);
    const bytes = readFileSync(`${out}.src.jpg`);
    const app1 = segmentAt(bytes, 0xe1);
    bytes.writeUInt16BE(bytes.readUInt16BE(app1 + 2) + 40, app1 + 2);
    writeFileSync(out, bytes);
  },
  "lt-app14-truncated.jpg": (out) => {
    // An Adobe APP14 that declares 14 bytes of payload and stops after its identifier.
    photoJpeg(`${out}.src.jpg`);
    const bytes = readFileSync(`${out}.src.jpg`);
    writeFileSync(out, Buffer.concat([bytes.subarray(0, 2), Buffer.from([0xff, 0xee, 0x00, 0x10]), Buffer.from("Adobe"), bytes.subarray(2)]));
  },
  "lt-truncated-end.jpg": (out) => {
    photoJpeg(`${out}.src.jpg`);
    const bytes = readFileSync(`${out}.src.jpg`);
    writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * 0.5)));
  },
  "lt-broken-idat.png": (out) => {
    photoPng(`${out}.src.png`);
    const bytes = readFileSync(`${out}.src.png`);
    const idat = bytes.indexOf("IDAT");
    for (let i = idat + 400; i < idat + 440; i++) bytes[i] = bytes[i]! ^ 0x55;
    writeFileSync(out, bytes);
  },
  "lt-truncated-iend.png": (out) => {
    photoPng(`${out}.src.png`);
    const bytes = readFileSync(`${out}.src.png`);
    writeFileSync(out, bytes.subarray(0, bytes.length - 6));
  },
  "lt-junk-before-sig.png": (out) => {
    photoPng(`${out}.src.png`);
    writeFileSync(out, Buffer.concat([Buffer.alloc(37, 0x20), readFileSync(`${out}.src.png`)]));
  },
  // ImageMagick writes uncompressed TGA rows bottom-up (descriptor origin bits 0), the layout most tools read.
  "lt-bottom-left.tga": (out) => magick([...sceneArgs, "-compress", "None", `tga:${out}`]),
  "lt-rgba.tga": (out) => magick([...sceneArgs, "-alpha", "set", "-channel", "A", "-evaluate", "set", "80%", "+channel", `tga:${out}`]),
  "lt-16bit.tga": (out) => magick([...sceneArgs, "-depth", "5", `tga:${out}`]),
  "lt-tiled16-lzw.tif": (out) => magick([...sceneArgs, "-depth", "16", "-compress", "lzw", "-define", "tiff:tile-geometry=32x32", `tiff:${out}`]),
  "lt-planar8-lzw.tif": (out) => magick([...sceneArgs, "-depth", "8", "-interlace", "plane", "-compress", "lzw", `tiff:${out}`]),
  "lt-planar16-lzw.tif": (out) => magick([...sceneArgs, "-depth", "16", "-interlace", "plane", "-compress", "lzw", `tiff:${out}`]),
  "lt-rgba.psd": (out) => magick([...sceneArgs, "-alpha", "set", "-channel", "A", "-evaluate", "set", "80%", "+channel", `psd:${out}`]),
  "lt-float.pfm": (out) => magick([...sceneArgs, `pfm:${out}`]),
  "lt-ultrahdr.jpg": (out) => {
    ffmpeg(["-f", "lavfi", "-i", `color=c=0xd03030:s=${scene.width}x${scene.height},drawbox=x=${scene.split}:y=0:w=${scene.width - scene.split}:h=${scene.height}:color=0x2050c0:t=fill`,
      "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", `${out}.primary.jpg`]);
    ffmpeg(["-f", "lavfi", "-i", "color=c=0x808080:s=48x32", "-frames:v", "1", "-pix_fmt", "gray", "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", `${out}.gain.jpg`]);
    writeFileSync(out, writeUltraHdr(readFileSync(`${out}.primary.jpg`), readFileSync(`${out}.gain.jpg`)));
  },
  "lt-bc7.dds": (out) => writeFileSync(out, dx10Dds(scene.width, scene.height, dxgi.bc7, textureBlocks(scene.width, scene.height,
    (x) => bc7SolidBlock(x < scene.split ? [...scene.main, 255] : [...scene.other, 255])))),
  "lt-bc6h.dds": (out) => writeFileSync(out, dx10Dds(scene.width, scene.height, dxgi.bc6hUnsigned, textureBlocks(scene.width, scene.height,
    (x) => bc6hSolidBlock(x < scene.split ? scene.main : scene.other)))),
  "lt-bc7-cut.dds": (out) => {
    const whole = dx10Dds(scene.width, scene.height, dxgi.bc7, textureBlocks(scene.width, scene.height,
      (x) => bc7SolidBlock(x < scene.split ? [...scene.main, 255] : [...scene.other, 255])));
    writeFileSync(out, whole.subarray(0, 148 + (scene.width / 4) * 10 * 16 + 5));
  },
  "lt-12bit.tif": (out) => magick([...sceneArgs, "-type", "TrueColor", "-depth", "12", "-compress", "None", `tiff:${out}`]),
  "lt-12bit-lzw.tif": (out) => magick([...sceneArgs, "-type", "TrueColor", "-depth", "12", "-compress", "lzw", `tiff:${out}`]),
  "lt-12bit-planar-zip.tif": (out) => magick([...sceneArgs, "-type", "TrueColor", "-depth", "12", "-interlace", "plane", "-compress", "zip", `tiff:${out}`]),
  "lt-ojpeg.tif": (out) => {
    ffmpeg(["-f", "lavfi", "-i", `color=c=0xd03030:s=${scene.width}x${scene.height},drawbox=x=${scene.split}:y=0:w=${scene.width - scene.split}:h=${scene.height}:color=0x2050c0:t=fill`,
      "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", `${out}.src.jpg`]);
    writeFileSync(out, oldStyleJpegTiff(readFileSync(`${out}.src.jpg`), scene.width, scene.height));
  },
  "lt-ojpeg-tables.tif": (out) => {
    ffmpeg(["-f", "lavfi", "-i", `color=c=0xd03030:s=${scene.width}x${scene.height},drawbox=x=${scene.split}:y=0:w=${scene.width - scene.split}:h=${scene.height}:color=0x2050c0:t=fill`,
      "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", `${out}.src.jpg`]);
    writeFileSync(out, oldStyleJpegTablesTiff(readFileSync(`${out}.src.jpg`), scene.width, scene.height));
  },
  "lt-icc-p3.jp2": (out) => {
    // ImageMagick writes JP2 with the enumerated sRGB colour box; the picture's own ICC profile (Display P3, which
    // libvips ships) replaces it as a restricted-ICC colour box (method 2).
    magick([...sceneArgs, `png24:${out}.src.png`]);
    execFileSync(process.execPath, ["-e", `require(${JSON.stringify(runnerSharp)})(${JSON.stringify(`${out}.src.png`)}).withIccProfile("p3")`
      + `.toFile(${JSON.stringify(`${out}.p3.png`)}).catch((e) => { console.error(e); process.exit(1); })`], quiet);
    magick([`${out}.p3.png`, `icc:${out}.icc`]);
    magick([`${out}.src.png`, `jp2:${out}.plain.jp2`]);
    writeFileSync(out, withIccColourBox(readFileSync(`${out}.plain.jp2`), readFileSync(`${out}.icc`)));
  },
  "lt-icon.icns": (out) => {
    // Apple's layout: "icns", the file length, then typed members; a small 32x32 PNG (ic11) before the 128x128 one (ic07).
    const member = (type: string, png: Buffer) => {
      const header = Buffer.alloc(8);
      header.write(type, 0, "latin1");
      header.writeUInt32BE(8 + png.length, 4);
      return Buffer.concat([header, png]);
    };
    magick(["-size", "128x128", "xc:#d03030", "-alpha", "set", `png32:${out}.scene.png`]);
    magick(["-size", "32x32", "xc:#20c020", "-alpha", "set", `png32:${out}.small.png`]);
    const members = Buffer.concat([member("ic11", readFileSync(`${out}.small.png`)), member("ic07", readFileSync(`${out}.scene.png`))]);
    const header = Buffer.alloc(8);
    header.write("icns", 0, "latin1");
    header.writeUInt32BE(8 + members.length, 4);
    writeFileSync(out, Buffer.concat([header, members]));
  },
};

/** Writes the missing fixtures into dir (each written whole under another name, then renamed). */
export function ensureLongtailFixtures(dir: string): string {
  return makeMissing(dir, longtailFixtures.map(({ file }) => file), (file, partial) => makers[file]!(partial));
}
