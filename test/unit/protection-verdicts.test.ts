// An encrypted file or stream is never `native`: each browser gets `eme` with the key system its Encrypted Media
// Extensions offer (Widevine: Chrome, Firefox, Edge, Android; PlayReady: Edge; FairPlay: Safari, iOS) or `no`.
import { describe, expect, it } from "vitest";
import { browsers, compatibility } from "../../shared/media/browser-support.ts";
import { keySystemOfId, keySystemOfKeyFormat } from "../../shared/media/key-systems.ts";

const mp4 = { mime: "video/mp4", codecs: ["avc1.64001F", "mp4a.40.2"] };

describe("verdicts of encrypted media", () => {
  it("cbcs for Widevine, PlayReady and FairPlay: every browser eme, each with its own key system", () => {
    const v = compatibility({ ...mp4, protection: { encrypted: true, scheme: "cbcs", keySystems: ["com.widevine.alpha", "com.microsoft.playready", "com.apple.fps"] } });
    expect(Object.fromEntries(browsers.map((b) => [b, v[b].keySystem]))).toEqual({
      chrome: "com.widevine.alpha", firefox: "com.widevine.alpha", safari: "com.apple.fps", ios: "com.apple.fps",
      android: "com.widevine.alpha", edge: "com.widevine.alpha",
    });
    for (const b of browsers) expect(v[b].verdict).toBe("eme");
  });

  it("PlayReady alone: Edge eme, the others no with the reason", () => {
    const v = compatibility({ ...mp4, protection: { encrypted: true, scheme: "cenc", keySystems: ["com.microsoft.playready"] } });
    expect(v.edge).toMatchObject({ verdict: "eme", keySystem: "com.microsoft.playready" });
    expect(v.chrome.verdict).toBe("no");
    expect(v.chrome.reasons.join(" ")).toMatch(/com.microsoft.playready: none is a key system this browser offers/);
  });

  it("cenc naming no key system (ffmpeg's own output): eme where Widevine/ClearKey can decrypt CTR, no in Apple's browsers", () => {
    const v = compatibility({ ...mp4, protection: { encrypted: true, scheme: "cenc", keySystems: [] } });
    expect(v.chrome.verdict).toBe("eme");
    expect(v.chrome.keySystem).toBeUndefined();
    expect(v.safari.verdict).toBe("no");
    expect(v.safari.reasons.join(" ")).toMatch(/decrypts only cbcs/);
  });

  it.each(["cens", "cbc1"])("%s (a scheme EME does not take): no in every browser, whatever the key systems", (scheme) => {
    const v = compatibility({ ...mp4, protection: { encrypted: true, scheme, keySystems: ["com.widevine.alpha", "com.microsoft.playready", "com.apple.fps"] } });
    for (const b of browsers) {
      expect(v[b].verdict, b).toBe("no");
      expect(v[b].reasons.join(" ")).toMatch(/decrypt only the cenc and cbcs schemes/);
    }
  });

  it("an unplayable codec stays no whatever the encryption", () => {
    const v = compatibility({ mime: "video/mp4", codecs: ["ac-3"], protection: { encrypted: true, scheme: "cbcs", keySystems: ["com.widevine.alpha"] } });
    expect(v.chrome.verdict).toBe("no");
  });

  it("system IDs and key formats map to EME names; unknown ones stay visible as urn:uuid", () => {
    expect(keySystemOfId("edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")).toBe("com.widevine.alpha");
    expect(keySystemOfId("urn:uuid:9A04F079-9840-4286-AB92-E65BE0885F95")).toBe("com.microsoft.playready");
    expect(keySystemOfId("1077efecc0b24d02ace33c1e52e2fb4b")).toBe("org.w3.clearkey");
    expect(keySystemOfId("00112233445566778899aabbccddeeff")).toBe("urn:uuid:00112233-4455-6677-8899-aabbccddeeff");
    expect(keySystemOfKeyFormat("com.apple.streamingkeydelivery")).toBe("com.apple.fps");
    expect(keySystemOfKeyFormat("identity")).toBeUndefined();
    expect(keySystemOfKeyFormat(undefined)).toBeUndefined();
  });
});
