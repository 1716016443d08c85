import { describe, expect, it } from "vitest";
import { aacConfig, av1Config, avcConfig, hevcConfig, matroskaVp9Features, vpcConfig, vp9LevelForSize } from "../../shared/media/codec-config.ts";
import { codecString, codecsOf, mimeWithCodecs } from "../../shared/media/codec-string.ts";
import { codecConfigFromFfprobe } from "../../shared/media/ffprobe-codec.ts";
import { compatibility } from "../../shared/media/browser-support.ts";

const bytes = (...b: number[]) => Uint8Array.from(b);
const str = (c: ReturnType<typeof avcConfig>) => codecString(c!);

// Expected strings are the published examples: MDN "codecs parameter" guide, Apple's HLS authoring spec
// (hvc1.2.4.L123.B0), the VP9 ISOBMFF binding (vp09.02.10.10.01.09.16.09.00), the AV1 ISOBMFF binding.
describe("codec strings from decoder configuration records", () => {
  it("avcC: profile, constraint flags, level as hex", () => {
    expect(str(avcConfig(bytes(1, 0x64, 0x00, 0x1f, 0xff)))).toBe("avc1.64001F");
    expect(str(avcConfig(bytes(1, 0x42, 0xe0, 0x1e)))).toBe("avc1.42E01E");
    expect(str(avcConfig(bytes(1, 0x4d, 0x40, 0x28), "avc3"))).toBe("avc3.4D4028");
    expect(avcConfig(bytes(1, 0x64))).toBeUndefined();
  });

  it("hvcC: profile space, bit-reversed compatibility flags, tier, level, constraint bytes without trailing zeros", () => {
    // Main 10 (idc 2), compatibility flag 2 set (0x20000000 -> reversed 4), main tier, level 123 (4.1), B0 constraints.
    const main10 = bytes(1, 0x02, 0x20, 0, 0, 0, 0xb0, 0, 0, 0, 0, 0, 123);
    expect(str(hevcConfig(main10))).toBe("hvc1.2.4.L123.B0");
    // Main (idc 1) with flags 1 and 2 (0x60000000 -> 6), high tier, level 93, hev1 entry.
    const main = bytes(1, 0x21, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 93);
    expect(str(hevcConfig(main, "hev1"))).toBe("hev1.1.6.H93.90");
    expect(hevcConfig(bytes(1, 2, 3))).toBeUndefined();
  });

  it("vpcC: short form for BT.709, long form with the colour of HDR", () => {
    // profile 0, level 1.0 (10), 8 bits, 4:2:0 colocated (1), limited range; BT.709 code points.
    expect(str(vpcConfig(bytes(0, 10, (8 << 4) | (1 << 1), 1, 1, 1, 0, 0)))).toBe("vp09.00.10.08");
    // profile 2, level 1.0, 10 bits, BT.2020 primaries (9), PQ (16), BT.2020 NCL (9).
    expect(str(vpcConfig(bytes(2, 10, (10 << 4) | (1 << 1), 9, 16, 9, 0, 0)))).toBe("vp09.02.10.10.01.09.16.09.00");
  });

  it("av1C: profile, level with tier, bit depth; colour from colr when not BT.709", () => {
    expect(str(av1Config(bytes(0x81, 0x04, 0x0c, 0)))).toBe("av01.0.04M.08");
    expect(str(av1Config(bytes(0x81, 0x08, 0x4c, 0)))).toBe("av01.0.08M.10");
    expect(str(av1Config(bytes(0x81, 0x2d, 0xcc, 0)))).toBe("av01.1.13H.10");
    expect(str(av1Config(bytes(0x81, 0x08, 0x4c, 0), { primaries: 9, transfer: 16, matrix: 9, fullRange: false })))
      .toBe("av01.0.08M.10.0.110.09.16.09.0");
    expect(av1Config(bytes(0x01, 0x08, 0x4c, 0))).toBeUndefined(); // marker bit unset
  });

  it("AudioSpecificConfig: the object type, escaped types above 30", () => {
    expect(str(aacConfig(bytes(0x12, 0x10)))).toBe("mp4a.40.2");
    expect(str(aacConfig(bytes(0x2b, 0x92)))).toBe("mp4a.40.5");
    // 31 escapes: 32 + 6 bits (000010 -> 34, MPEG-1 Layer 3 in AAC numbering).
    expect(str(aacConfig(bytes(0xf8, 0x40)))).toBe("mp4a.40.34");
  });

  it("names for the codecs browsers know by name", () => {
    expect(codecString({ codec: "opus" })).toBe("opus");
    expect(codecString({ codec: "ac3" })).toBe("ac-3");
    expect(codecString({ codec: "eac3" })).toBe("ec-3");
    expect(codecString({ codec: "mp3-in-mp4" })).toBe("mp4a.6B");
  });

  it("Matroska VP9 CodecPrivate feature blocks, and a level from the picture size", () => {
    expect(matroskaVp9Features(bytes(1, 1, 2, 2, 1, 31, 3, 1, 10))).toEqual({ profile: 2, level: 31, bitDepth: 10 });
    expect(matroskaVp9Features(bytes(1, 1))).toEqual({});
    expect(vp9LevelForSize(320, 240)).toBe(20); // 76800 pixels: over level 1.1 (73728)
    expect(vp9LevelForSize(1920, 1080)).toBe(40);
  });
});

describe("codec strings from ffprobe's stream fields", () => {
  it("maps profile names, levels, tags and colour names", () => {
    const s = (fields: Parameters<typeof codecConfigFromFfprobe>[0], mp4 = true) => codecString(codecConfigFromFfprobe(fields, mp4)!);
    expect(s({ codec_name: "h264", profile: "High", level: 31 })).toBe("avc1.64001F");
    expect(s({ codec_name: "h264", profile: "Constrained Baseline", level: 30 })).toBe("avc1.42E01E");
    expect(s({ codec_name: "hevc", profile: "Main 10", level: 123, codec_tag_string: "hvc1" })).toBe("hvc1.2.4.L123.B0");
    expect(s({ codec_name: "vp9", profile: "Profile 2", level: -99, pix_fmt: "yuv420p10le", width: 320, height: 240,
      color_primaries: "bt2020", color_transfer: "smpte2084", color_space: "bt2020nc", color_range: "tv" }, false))
      .toBe("vp09.02.20.10.01.09.16.09.00");
    expect(s({ codec_name: "av1", profile: "Main", level: 8, pix_fmt: "yuv420p" })).toBe("av01.0.08M.08");
    expect(s({ codec_name: "aac", profile: "HE-AAC" })).toBe("mp4a.40.5");
    expect(s({ codec_name: "mp3" })).toBe("mp4a.6B");
    expect(s({ codec_name: "mp3" }, false)).toBe("mp3");
    expect(codecConfigFromFfprobe({ codec_name: "pcm_s16le" }, true)).toBeUndefined();
    expect(codecConfigFromFfprobe({ codec_name: "dts" }, false)).toBeUndefined();
  });
});

describe("the type with codecs", () => {
  it("quotes the list, keeps single-codec types bare, and reads a list back", () => {
    expect(mimeWithCodecs("video/mp4", ["avc1.64001F", "mp4a.40.2"])).toBe('video/mp4; codecs="avc1.64001F, mp4a.40.2"');
    expect(mimeWithCodecs("audio/mpeg", ["mp3"])).toBe("audio/mpeg");
    expect(mimeWithCodecs("audio/flac", ["flac"])).toBe("audio/flac");
    expect(codecsOf('video/webm; codecs="vp09.00.10.08, opus"')).toEqual(["vp09.00.10.08", "opus"]);
  });
});

describe("linear PCM in WAVE", () => {
  it("is format tag 1 (RFC 2361), bare on audio/wav, and plays everywhere", () => {
    const config = codecConfigFromFfprobe({ codec_name: "pcm_s16le" }, false)!;
    expect(codecString(config)).toBe("1");
    expect(mimeWithCodecs("audio/wav", ["1"])).toBe("audio/wav");
    expect(codecConfigFromFfprobe({ codec_name: "pcm_s16le" }, true)).toBeUndefined();
    const verdicts = compatibility({ mime: "audio/wav", codecs: ["1"] });
    for (const browser of Object.values(verdicts)) expect(browser.verdict).toBe("native");
  });
});
