import { describe, expect, it } from "vitest";
import { maxShareIdLength, shareIdOf, sharePageUrl, urlOfShareId } from "../../shared/format/share-id.ts";
import { fitAudioPlayer, fitWithin } from "../../worker/http/oembed-media.ts";

describe("share ids", () => {
  it("round-trip any URL the API accepts, UTF-8 included, with no dot, slash or padding", () => {
    for (const url of ["http://cdn.example/a.mp4", "https://x.example/ä/ß.mp3?q=1&r=%20#f", `https://e.example/${"a".repeat(2000)}.mp3`]) {
      const id = shareIdOf(url);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(urlOfShareId(id)).toBe(url);
    }
    expect(sharePageUrl("https://media.example", "http://cdn.example/a.mp4")).toBe("https://media.example/v/aHR0cDovL2Nkbi5leGFtcGxlL2EubXA0");
  });

  it("refuse what is not unpadded base64url of UTF-8, or longer than the longest URL's id", () => {
    for (const id of ["", "a.b", "a+b/", "QQ==", "Q", "_w", "x".repeat(maxShareIdLength + 1)]) expect(urlOfShareId(id), id).toBeUndefined();
  });
});

describe("audio player size in oEmbed", () => {
  it("cuts each side to its limit on its own (a control bar has no aspect ratio), where pictures scale", () => {
    const size = { width: 480, height: 54 };
    expect(fitAudioPlayer(size, 200)).toEqual({ width: 200, height: 54 });
    expect(fitAudioPlayer(size, 320, 40)).toEqual({ width: 320, height: 40 });
    expect(fitAudioPlayer(size)).toEqual(size);
    expect(fitWithin(size, 200)).toEqual({ width: 200, height: 22 });
  });
});
