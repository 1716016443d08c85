import { describe, expect, it } from "vitest";
import { browsers, codecFamily, compatibility, verdictFor } from "../../shared/media/browser-support.ts";

describe("browser verdicts from the support table", () => {
  it("H.264/AAC MP4 plays natively everywhere; a moov at the end is a reason, not a refusal", () => {
    const v = compatibility({ mime: "video/mp4", codecs: ["avc1.64001F", "mp4a.40.2"], faststart: false });
    for (const b of Object.values(v)) expect(b.verdict).toBe("native");
    expect(v.chrome.reasons.join(" ")).toMatch(/moov at the end/);
  });

  it("HEVC needs a hardware decoder outside Apple; a build without one says no", () => {
    const facts = { mime: "video/mp4", codecs: ["hvc1.1.6.L93.B0"] };
    expect(verdictFor("safari", facts)).toEqual({ verdict: "native", reasons: [] });
    expect(verdictFor("chrome", facts).reasons.join(" ")).toMatch(/hardware decoder/);
    expect(verdictFor("chrome", facts, { proprietaryCodecs: true, hardwareDecoders: false }).verdict).toBe("no");
  });

  it("open-source Chromium builds lack H.264 and AAC", () => {
    const v = verdictFor("chrome", { mime: "audio/mp4", codecs: ["mp4a.40.2"] }, { proprietaryCodecs: false, hardwareDecoders: false });
    expect(v.verdict).toBe("no");
    expect(verdictFor("firefox", { mime: "audio/mp4", codecs: ["mp4a.40.2"] }, { proprietaryCodecs: false, hardwareDecoders: false }).verdict).toBe("native");
  });

  it("Ogg is not played by Safari; AC-3 only by Apple; HDR is named", () => {
    expect(verdictFor("safari", { mime: "audio/ogg", codecs: ["opus"] }).verdict).toBe("no");
    expect(verdictFor("chrome", { mime: "audio/ogg", codecs: ["opus"] }).verdict).toBe("native");
    expect(verdictFor("chrome", { mime: "audio/mp4", codecs: ["ac-3"] }).verdict).toBe("no");
    expect(verdictFor("ios", { mime: "audio/mp4", codecs: ["ac-3"] }).verdict).toBe("native");
    expect(verdictFor("chrome", { mime: "video/webm", codecs: ["vp09.02.10.10.01.09.16.09.00"], hdr: "pq" }).reasons.join(" ")).toMatch(/PQ/);
  });

  it("DASH takes an MSE player everywhere, HLS only in Firefox", () => {
    const dash = compatibility({ mime: "application/dash+xml", codecs: ["avc1.64001F"], streaming: "dash" });
    expect(dash.chrome.verdict).toBe("mse");
    const hls = compatibility({ mime: "application/vnd.apple.mpegurl", codecs: ["avc1.64001F", "mp4a.40.2"], streaming: "hls" });
    expect(hls.safari.verdict).toBe("native");
    expect(hls.firefox.verdict).toBe("mse");
  });

  it("raw AAC in ADTS (audio/aac) plays in every browser; open-source Chromium lacks the codec", () => {
    for (const mime of ["audio/aac", "audio/x-aac"]) {
      const v = compatibility({ mime, codecs: ["mp4a.40.2"] });
      for (const b of browsers) expect(v[b].verdict, `${mime} ${b}`).toBe("native");
    }
    expect(compatibility({ mime: "audio/aac", codecs: ["mp4a.40.2"] }, { proprietaryCodecs: false, hardwareDecoders: true }).chrome.verdict).toBe("no");
  });

  it("an unknown codec is a refusal with its name", () => {
    const v = verdictFor("chrome", { mime: "video/mp4", codecs: ["xyz1"] });
    expect(v.verdict).toBe("no");
    expect(v.reasons[0]).toContain("xyz1");
    expect(codecFamily("mp4a.6B")).toBe("mp3");
  });
});
