import { describe, expect, it } from "vitest";
import { aiDeclaration } from "../../worker/probe/ai-declaration.ts";
import { exifDateTime } from "../../worker/probe/capture-rights.ts";
import { parseIso6709 } from "../../worker/probe/mp4-user-data.ts";
import { largestXmpPacket } from "../../worker/probe/image-tags.ts";

const iptc = (code: string) => `http://cv.iptc.org/newscodes/digitalsourcetype/${code}`;

describe("aiGenerated only from declarations", () => {
  it("is true for the trained-model codes, naming which declaration said so", () => {
    expect(aiDeclaration(iptc("trainedAlgorithmicMedia"), undefined)).toEqual({ aiGenerated: true, aiBasis: "c2pa:digitalSourceType:trainedAlgorithmicMedia" });
    expect(aiDeclaration(undefined, iptc("compositeWithTrainedAlgorithmicMedia"))).toEqual({ aiGenerated: true, aiBasis: "iptc:digitalSourceType:compositeWithTrainedAlgorithmicMedia" });
  });
  it("is false only when a C2PA manifest declares a capture, null otherwise", () => {
    expect(aiDeclaration(iptc("digitalCapture"), undefined)).toEqual({ aiGenerated: false, aiBasis: "c2pa:digitalSourceType:digitalCapture" });
    expect(aiDeclaration(undefined, iptc("digitalCapture"))).toEqual({ aiGenerated: null });
    expect(aiDeclaration(iptc("algorithmicMedia"), undefined)).toEqual({ aiGenerated: null });
    expect(aiDeclaration(undefined, undefined)).toEqual({ aiGenerated: null });
  });
});

describe("capture times", () => {
  it("joins EXIF DateTimeOriginal and OffsetTimeOriginal; stays local without an offset", () => {
    expect(exifDateTime("2024:05:06 07:08:09", "+02:00")).toBe("2024-05-06T07:08:09+02:00");
    expect(exifDateTime("2024:05:06 07:08:09", undefined)).toBe("2024-05-06T07:08:09");
    expect(exifDateTime("2024-05-06T07:08:09Z", undefined)).toBe("2024-05-06T07:08:09Z");
  });
  it("leaves out unset and impossible times", () => {
    expect(exifDateTime("0000:00:00 00:00:00", undefined)).toBeUndefined();
    expect(exifDateTime("2024:02:30 10:00:00", undefined)).toBeUndefined();
    expect(exifDateTime("garbage", "+02:00")).toBeUndefined();
  });
});

describe("ISO 6709 locations", () => {
  it("reads degrees with and without altitude", () => {
    expect(parseIso6709("+48.8584+002.2945/")).toEqual({ latitude: 48.8584, longitude: 2.2945 });
    expect(parseIso6709("+51.5007-000.1246+020.000/")).toEqual({ latitude: 51.5007, longitude: -0.1246, altitudeM: 20 });
  });
  it("refuses out-of-range or malformed strings", () => {
    expect(parseIso6709("+95.0+010.0/")).toBeUndefined();
    expect(parseIso6709("north of here")).toBeUndefined();
  });
});

describe("XMP packet size is counted, never declared", () => {
  it("measures an unterminated packet to the end of the bytes", () => {
    const bytes = new TextEncoder().encode(`xx<x:xmpmeta>${"a".repeat(1000)}`);
    expect(largestXmpPacket(bytes)).toBe(1000 + "<x:xmpmeta>".length);
    expect(largestXmpPacket(new TextEncoder().encode("<x:xmpmeta>a</x:xmpmeta><x:xmpmeta>bb</x:xmpmeta>"))).toBe(25);
  });
});
