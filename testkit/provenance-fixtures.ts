/**
 * Files with capture, rights and AI-declaration tags, made at set-up: ffmpeg makes the pictures and clips, exiftool
 * (a tool nobody here wrote) writes EXIF, IPTC, XMP, GPS and QuickTime keys into them, and exiftool's own reading
 * of each file is the reference the service is checked against. Hostile files (an XMP packet declaring 1 GB, a
 * billion-laughs XMP) are written byte by byte.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeMissing } from "./make-missing.ts";

export interface ExiftoolReading {
  takenAt?: string;
  make?: string;
  model?: string;
  latitude?: number;
  longitude?: number;
  creator?: string;
  copyright?: string;
  digitalSourceType?: string;
}

interface TaggedFixture {
  file: string;
  make: (out: string) => void;
}

const quiet = { stdio: ["ignore", "ignore", "pipe"] as ["ignore", "ignore", "pipe"] };
const ffmpeg = (...args: string[]) => execFileSync("ffmpeg", ["-loglevel", "error", "-y", ...args], quiet);
const exiftool = (file: string, ...tags: string[]) => execFileSync("exiftool", ["-q", "-overwrite_original", ...tags, file], quiet);

const gps = ["-GPSLatitude=48.858370", "-GPSLatitudeRef=N", "-GPSLongitude=2.294481", "-GPSLongitudeRef=E", "-GPSAltitude=35.5", "-GPSAltitudeRef=0"];

export const taggedFixtures: TaggedFixture[] = [
  {
    // A camera JPEG: EXIF time with offset, make/model, GPS south-west, EXIF artist/copyright, XMP licence.
    file: "tagged-camera.jpg",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x240", "-frames:v", "1", out);
      exiftool(out, "-DateTimeOriginal=2024:05:06 07:08:09", "-OffsetTimeOriginal=+02:00", "-Make=Canon", "-Model=EOS R5",
        "-Software=Firmware 1.2", "-GPSLatitude=33.865143", "-GPSLatitudeRef=S", "-GPSLongitude=151.209900", "-GPSLongitudeRef=E",
        "-GPSAltitude=12", "-GPSAltitudeRef=Below Sea Level", "-Artist=Jane Doe", "-Copyright=(c) 2024 Jane Doe",
        "-XMP-cc:License=https://creativecommons.org/licenses/by/4.0/", "-XMP-xmpRights:UsageTerms=Attribution required",
        "-XMP-photoshop:Credit=Doe Agency");
    },
  },
  {
    // An AI image declared the IPTC way (XMP Iptc4xmpExt:DigitalSourceType), creator only in XMP/IPTC IIM.
    file: "tagged-ai.jpg",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "mandelbrot=size=256x256", "-frames:v", "1", out);
      exiftool(out, "-XMP-iptcExt:DigitalSourceType=http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia",
        "-XMP-dc:Creator=Image Model v3", "-IPTC:CopyrightNotice=Public domain", "-IPTC:By-line=Image Model v3");
    },
  },
  {
    // A PNG with EXIF (eXIf) and XMP (iTXt): the local time without an offset stays local.
    file: "tagged.png",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120", "-frames:v", "1", out);
      exiftool(out, "-EXIF:DateTimeOriginal=2023:11:12 13:14:15", "-EXIF:Make=Google", "-EXIF:Model=Pixel 8", ...gps,
        "-XMP-dc:Creator=Png Author", "-XMP-dc:Rights=CC0");
    },
  },
  {
    // A WebP with EXIF and XMP chunks.
    file: "tagged.webp",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120", "-frames:v", "1", "-c:v", "libwebp", out);
      exiftool(out, "-EXIF:DateTimeOriginal=2022:02:03 04:05:06", "-EXIF:OffsetTimeOriginal=-05:00", "-EXIF:Make=Sony",
        "-EXIF:Model=A7 IV", ...gps, "-XMP-dc:Creator=Webp Author", "-XMP-dc:Rights=All rights reserved");
    },
  },
  {
    // A phone MOV: QuickTime metadata keys (creation date with offset, ISO 6709 location, make/model, author).
    file: "tagged-phone.mov",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", out);
      exiftool(out, "-Keys:CreationDate=2024:07:08 09:10:11+01:00", "-Keys:GPSCoordinates=51.500729, -0.124625, 20",
        "-Keys:Make=Apple", "-Keys:Model=iPhone 15 Pro", "-Keys:Software=17.5", "-Keys:Author=Phone Owner", "-Keys:Copyright=(c) Phone Owner");
    },
  },
  {
    // An MP4 as ffmpeg writes tags: mvhd creation time, ©xyz location in udta, ©ART and cprt in the item list.
    file: "tagged.mp4",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
        "-metadata", "creation_time=2021-03-04T05:06:07Z", "-metadata", "location=+40.6892-074.0445/",
        "-metadata", "artist=Mp4 Artist", "-metadata", "copyright=(c) Mp4 Artist", "-movflags", "+faststart", out);
    },
  },
  {
    // An MP3 with ID3v2 TPE1 / TCOP / TDRC.
    file: "tagged.mp3",
    make: (out) => {
      ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libmp3lame", "-id3v2_version", "4",
        "-metadata", "artist=Song Artist", "-metadata", "copyright=(c) Song Label", "-metadata", "date=2020-06-07", out);
    },
  },
  {
    // A JPEG with no metadata at all: nothing may be invented.
    file: "untagged.jpg",
    make: (out) => ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120", "-frames:v", "1", "-map_metadata", "-1", "-fflags", "+bitexact", out),
  },
];

/** Hostile XMP: a packet that claims 1 GB, and a billion-laughs document, each in a PNG iTXt chunk or a JPEG APP1. */
export const hostileFixtures = ["xmp-1gb-declared.png", "xmp-billion-laughs.jpg", "xmp-oversized.jpg"] as const;

export function ensureProvenanceFixtures(dir: string): string {
  makeMissing(dir, taggedFixtures.map(({ file }) => file), (file, partial) => taggedFixtures.find((f) => f.file === file)!.make(partial));
  writeHostile(dir);
  return dir;
}

/** exiftool's own reading of a file, in the fields the service reports. */
export function exiftoolReading(dir: string, file: string): ExiftoolReading {
  const [r] = JSON.parse(execFileSync("exiftool", ["-j", "-n", "-G1", "-a", join(dir, file)], { encoding: "utf8" })) as Record<string, unknown>[];
  const pick = (...keys: string[]) => keys.map((k) => r![k]).find((v) => v !== undefined);
  const str = (v: unknown) => (v === undefined ? undefined : String(v));
  const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : undefined);
  const quickTimeGps = str(pick("Keys:GPSCoordinates", "UserData:GPSCoordinates"))?.split(/\s+/).map(Number);
  const reading: ExiftoolReading = {
    takenAt: str(pick("Composite:SubSecDateTimeOriginal", "ExifIFD:DateTimeOriginal", "IFD0:DateTimeOriginal", "Keys:CreationDate", "QuickTime:CreateDate", "ID3v2_4:RecordingTime")),
    make: str(pick("IFD0:Make", "Keys:Make")),
    model: str(pick("IFD0:Model", "Keys:Model")),
    latitude: num(pick("Composite:GPSLatitude")) ?? quickTimeGps?.[0],
    longitude: num(pick("Composite:GPSLongitude")) ?? quickTimeGps?.[1],
    creator: str(pick("IFD0:Artist", "XMP-dc:Creator", "IPTC:By-line", "Keys:Author", "ItemList:Artist", "ID3v2_4:Artist")),
    copyright: str(pick("IFD0:Copyright", "IPTC:CopyrightNotice", "XMP-dc:Rights", "Keys:Copyright", "ItemList:Copyright", "ID3v2_4:Copyright")),
    digitalSourceType: str(pick("XMP-iptcExt:DigitalSourceType")),
  };
  return Object.fromEntries(Object.entries(reading).filter(([, v]) => v !== undefined && !Number.isNaN(v))) as ExiftoolReading;
}

function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, body: Uint8Array, declaredLength = body.length): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(declaredLength, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

function jpegWithApp1(base: Buffer, payload: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt16BE(0xffe1, 0);
  length.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([base.subarray(0, 2), length, payload, base.subarray(2)]);
}

const billionLaughs = `<?xml version="1.0"?><!DOCTYPE x:xmpmeta [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">`
  + `<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">`
  + `<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">`
  + `<!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;"><!ENTITY j "&i;&i;&i;&i;&i;&i;&i;&i;&i;&i;">]>`
  + `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`
  + `<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>&j;</rdf:li></rdf:Seq></dc:creator>`
  + `</rdf:Description></rdf:RDF></x:xmpmeta>`;

function writeHostile(dir: string): void {
  const jpeg = readFileSync(join(dir, "untagged.jpg"));
  const png = Buffer.from(execFileSync("ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-"]));
  // An iTXt XMP chunk whose length field says 1 GB, followed by 64 KiB of packet and the image's real chunks.
  const ihdrEnd = 8 + 25;
  const xmpHead = Buffer.from("XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">" + "A".repeat(64 * 1024), "latin1");
  writeFileSync(join(dir, "xmp-1gb-declared.png"), Buffer.concat([png.subarray(0, ihdrEnd), pngChunk("iTXt", xmpHead, 0x40000000), png.subarray(ihdrEnd)]));
  writeFileSync(join(dir, "xmp-billion-laughs.jpg"), jpegWithApp1(jpeg, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${billionLaughs}`, "latin1")));
  // 20 APP1 XMP segments of 60 KiB each in one packet that never closes: 1.2 MB of XMP, over the 1 MiB cap.
  const segments = Array.from({ length: 20 }, (_, i) => {
    const body = Buffer.from(`http://ns.adobe.com/xap/1.0/\0${i === 0 ? "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">" : ""}${"B".repeat(60 * 1024)}`, "latin1");
    const marker = Buffer.alloc(4);
    marker.writeUInt16BE(0xffe1, 0);
    marker.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([marker, body]);
  });
  writeFileSync(join(dir, "xmp-oversized.jpg"), Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]));
}
