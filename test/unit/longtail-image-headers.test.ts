// Header readers `fast` uses for the pictures the runner decodes through ffmpeg (DDS, TGA, PSD, PFM, ICNS) and for
// damaged JPEG/PNG files decoders still read (junk before the header, a segment length past its segment). Files
// are made with ImageMagick, ffmpeg and exiftool (testkit/longtail-image-fixtures.ts) or written here from
// their published layouts; then every reader runs on seeded corruptions and hostile layouts: no throw, bounded.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readImageHeader, imageMetadataOf } from "../../worker/image/header/read-image-header.ts";
import { ddsColorFacts, icnsColorFacts, pnmColorFacts, psdColorFacts, tgaColorFacts } from "../../worker/image/header/texture-facts.ts";
import { pictureAfterJunk, tolerantJpegHeader } from "../../worker/image/header/damaged-headers.ts";
import { jpegGainMap } from "../../shared/media/gain-map.ts";
import { ensureLongtailFixtures, longtailFixtures } from "../../testkit/longtail-image-fixtures.ts";
import { corrupt } from "../../testkit/reliability/fuzz.ts";

const dir = join(tmpdir(), "media-inspect-longtail-headers");
const magick = (...args: string[]) => execFileSync("convert", args, { stdio: ["ignore", "ignore", "pipe"] });
const extra: Record<string, { width: number; height: number; colorSpace: string; hasAlpha: boolean }> = {
  "dxt1.dds": { width: 96, height: 64, colorSpace: "srgb", hasAlpha: true },
  "dxt5.dds": { width: 96, height: 64, colorSpace: "srgb", hasAlpha: true },
  "rgb.dds": { width: 96, height: 64, colorSpace: "srgb", hasAlpha: false },
  "gray.tga": { width: 96, height: 64, colorSpace: "gray", hasAlpha: false },
  "gray.psd": { width: 96, height: 64, colorSpace: "gray", hasAlpha: false },
  "cmyk.psd": { width: 96, height: 64, colorSpace: "cmyk", hasAlpha: false },
  "rgb.psd": { width: 96, height: 64, colorSpace: "srgb", hasAlpha: false },
  "icon.icns": { width: 128, height: 128, colorSpace: "srgb", hasAlpha: true },
};

/** An ICNS with one ic07 member (a 128x128 PNG). */
function writeIcns(out: string): void {
  const png = join(dir, "icon.png");
  magick("-size", "128x128", "xc:#d03030", "-alpha", "set", `png32:${png}`);
  const member = readFileSync(png);
  const header = Buffer.alloc(16);
  header.write("icns", 0, "latin1");
  header.writeUInt32BE(16 + member.length, 4);
  header.write("ic07", 8, "latin1");
  header.writeUInt32BE(8 + member.length, 12);
  writeFileSync(out, Buffer.concat([header, member]));
}

beforeAll(() => {
  ensureLongtailFixtures(dir);
  const red = ["-size", "96x64", "xc:#d03030"];
  magick(...red, "-define", "dds:compression=dxt1", "-define", "dds:mipmaps=0", `dds:${join(dir, "dxt1.dds")}`);
  magick(...red, "-alpha", "set", "-define", "dds:compression=dxt5", "-define", "dds:mipmaps=0", `dds:${join(dir, "dxt5.dds")}`);
  magick(...red, "-define", "dds:compression=none", "-define", "dds:mipmaps=0", `dds:${join(dir, "rgb.dds")}`);
  magick(...red, "-colorspace", "gray", `tga:${join(dir, "gray.tga")}`);
  magick(...red, "-colorspace", "gray", `psd:${join(dir, "gray.psd")}`);
  magick(...red, "-colorspace", "cmyk", `psd:${join(dir, "cmyk.psd")}`);
  magick(...red, `psd:${join(dir, "rgb.psd")}`);
  writeIcns(join(dir, "icon.icns"));
}, 60_000);

const head = (file: string) => new Uint8Array(readFileSync(join(dir, file))).subarray(0, 64 * 1024);

describe("header facts in fast", () => {
  it.each(longtailFixtures)("$file: size, colour space and alpha without decoding", (f) => {
    const meta = imageMetadataOf(readImageHeader(head(f.file)));
    expect(meta).toMatchObject({ width: f.width, height: f.height, colorSpace: f.colorSpace ?? "srgb" });
    if (f.hasAlpha) expect(meta?.hasAlpha).toBe(true);
  });

  it.each(Object.entries(extra))("%s: %o", (file, want) => {
    expect(imageMetadataOf(readImageHeader(head(file)))).toMatchObject(want);
  });

  it("the lying EXIF length and the cut APP14 are read past by resynchronising on the next marker", () => {
    expect(tolerantJpegHeader(head("lt-exif-overrun.jpg"))).toMatchObject({ format: "jpeg", width: 320, height: 240 });
    expect(tolerantJpegHeader(head("lt-app14-truncated.jpg"))).toMatchObject({ format: "jpeg", width: 320, height: 240 });
    expect(pictureAfterJunk(head("lt-junk-before-sig.png"))).toBe(37);
    expect(pictureAfterJunk(head("lt-truncated-end.jpg"))).toBeUndefined();
  });
});

describe("HDR gain maps", () => {
  it("an Ultra HDR JPEG (hdrgm XMP, MPF index, gain-map JPEG after EOI) announces its gain map; fast reports it", () => {
    expect(jpegGainMap(head("lt-ultrahdr.jpg"))).toEqual({ signalledBy: ["xmp-hdrgm"], version: "1.0" });
    expect(imageMetadataOf(readImageHeader(head("lt-ultrahdr.jpg")))).toMatchObject({ width: 96, height: 64, hdrGainMap: { signalledBy: ["xmp-hdrgm"] } });
  });

  it("an ISO 21496-1 APP2 announces one too; a plain JPEG, or an hdrgm namespace without a version, does not", () => {
    const plain = Buffer.from(head("lt-truncated-end.jpg"));
    const urn = Buffer.from("urn:iso:std:iso:ts:21496:-1\0\0\0\0", "latin1");
    const app2 = Buffer.concat([Buffer.from([0xff, 0xe2, 0, urn.length + 2]), urn]);
    expect(jpegGainMap(Buffer.concat([plain.subarray(0, 2), app2, plain.subarray(2)]))).toEqual({ signalledBy: ["iso-21496-1"] });
    expect(jpegGainMap(plain)).toBeUndefined();
    const xmp = Buffer.from("http://ns.adobe.com/xap/1.0/\0<x xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\"/>", "latin1");
    const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0, xmp.length + 2]), xmp]);
    expect(jpegGainMap(Buffer.concat([plain.subarray(0, 2), app1, plain.subarray(2)]))).toBeUndefined();
  });
});

describe("the readers on hostile bytes", () => {
  const readers = { jpegGainMap, ddsColorFacts, tgaColorFacts, psdColorFacts, pnmColorFacts, icnsColorFacts, tolerantJpegHeader, pictureAfterJunk, readImageHeader };

  it("600 seeded corruptions of every file: no reader throws, none takes long", () => {
    const files = [...longtailFixtures.map((f) => f.file), ...Object.keys(extra)];
    let slowest = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const bytes = new Uint8Array(corrupt(Buffer.from(head(files[seed % files.length]!)), seed));
      for (const read of Object.values(readers)) {
        const started = performance.now();
        expect(() => read(bytes)).not.toThrow();
        slowest = Math.max(slowest, performance.now() - started);
      }
    }
    expect(slowest).toBeLessThan(500);
  });

  it("a megabyte of 0xFF after an SOI, a PSD whose resources chain forever, a header cut at every byte", () => {
    const ff = new Uint8Array(1024 * 1024).fill(0xff);
    ff.set([0xff, 0xd8, 0xff]);
    const started = performance.now();
    expect(tolerantJpegHeader(ff)).toBeNull();
    expect(pictureAfterJunk(new Uint8Array(1024 * 1024).fill(0x89))).toBeUndefined();
    const psd = Buffer.from(head("rgb.psd"));
    const looped = Buffer.alloc(26 + 4 + 4 + 12 * 100_000);
    psd.copy(looped, 0, 0, 26);
    looped.writeUInt32BE(0, 26);
    looped.writeUInt32BE(12 * 100_000, 30);
    for (let o = 34; o + 12 <= looped.length; o += 12) { looped.write("8BIM", o, "latin1"); looped.writeUInt16BE(1000, o + 4); }
    expect(psdColorFacts(looped)).toMatchObject({ colorSpace: "srgb" });
    for (const file of ["rgb.psd", "dxt5.dds", "gray.tga", "icon.icns", "lt-float.pfm", "lt-exif-overrun.jpg", "lt-ultrahdr.jpg"]) {
      const whole = head(file).subarray(0, 512);
      for (let n = 0; n <= whole.length; n++) for (const read of Object.values(readers)) read(whole.subarray(0, n));
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("sniffing a picture behind junk", () => {
  it("a JPEG or PNG after leading junk is named by its own signature, whatever the server declares", async () => {
    const { sniffMime } = await import("../../worker/probe/sniff-mime.ts");
    expect(await sniffMime(head("lt-junk-before-soi.jpg"), "application/octet-stream")).toBe("image/jpeg");
    expect(await sniffMime(head("lt-junk-before-sig.png"), undefined)).toBe("image/png");
    expect(await sniffMime(new TextEncoder().encode("<!doctype html><p>no picture here</p>"), "text/html")).toBe("text/html");
  });
});
