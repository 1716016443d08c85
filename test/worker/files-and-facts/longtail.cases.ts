// What a caller sees for the long tail, through the Worker (and the runner the tests start): damaged JPEG/PNG
// thumbnails (photon refuses them, the runner's second decoder reads them), header facts in fast for DDS/TGA/PSD
// and damaged JPEGs, MPEG-TS timing across a 2^33 rollover and before the first keyframe, fMP4 init and media
// segments, FLC as video. Files from testkit/longtail-*-fixtures.ts, served by the loopback origin.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

describe("damaged pictures", () => {
  it.each(["lt-junk-before-soi.jpg", "lt-exif-overrun.jpg", "lt-app14-truncated.jpg", "lt-junk-before-sig.png", "lt-broken-idat.png"])(
    "%s: fast states the size; full has a thumbnail", async (file) => {
      const url = media(file);
      const fast = await inspect(url, "profile=fast");
      expect(fast.status, JSON.stringify(fast.body)).toBe(200);
      expect(fast.body.data.metadata.image).toMatchObject({ width: 320, height: 240 });
      const full = await inspect(url, "profile=full");
      expect(full.status, JSON.stringify(full.body)).toBe(200);
      expect(full.body.processing.failedStages).toBeUndefined();
      expect(full.body.data.preview.thumbnail.dimensions).toBe("320x240");
    }, 60_000);

  it.each([["lt-rgba.psd", true], ["lt-16bit.tga", false], ["lt-float.pfm", false]] as const)("%s: fast has size, colour space and alpha", async (file, alpha) => {
    const { status, body } = await inspect(media(file), "profile=fast");
    expect(status).toBe(200);
    expect(body.data.metadata.image).toMatchObject({ width: 96, height: 64, colorSpace: "srgb", hasAlpha: alpha });
  });
});

describe("HDR gain maps", () => {
  it("an Ultra HDR JPEG: metadata.image.hdrGainMap in fast and full", async () => {
    const url = media("lt-ultrahdr.jpg");
    for (const profile of ["fast", "full"]) {
      const { body } = await inspect(url, `profile=${profile}`);
      expect(body.data.metadata.image).toMatchObject({ width: 96, height: 64, hdrGainMap: { signalledBy: ["xmp-hdrgm"], version: "1.0" } });
    }
  });
});

describe("segments and animations", () => {
  it("an MPEG-TS whose clock rolls over 2^33: ffprobe's duration and 25 fps in fast", async () => {
    const { body } = await inspect(media("lt-rollover.ts"), "profile=fast");
    expect(body.data.metadata.video.fps).toBe(25);
    expect(body.data.metadata.video.duration.seconds).toBeCloseTo(4.021, 2);
  });

  it("an MPEG-TS cut before its keyframe: size and fps in fast, a thumbnail in full", async () => {
    const url = media("lt-before-keyframe.ts");
    const fast = await inspect(url, "profile=fast");
    expect(fast.body.data.metadata.video).toMatchObject({ width: 320, height: 240, fps: 25 });
    const full = await inspect(url, "profile=full");
    expect(full.body.data.preview.thumbnail.dimensions).toMatch(/^\d+x\d+$/);
  }, 60_000);

  it("an initialization segment: semantic.segment init, tracks and codecs, no duration, previews end with the reason", async () => {
    const { status, body } = await inspect(media("lt-init.mp4"), "profile=full");
    expect(status).toBe(200);
    expect(body.data.semantic).toMatchObject({ semanticType: "video", segment: "init" });
    expect(body.data.metadata.video).toMatchObject({ width: 320, height: 240, codec: "h264" });
    expect(body.data.metadata.video.duration).toBeUndefined();
    expect(body.data.playback.codecs).toMatch(/avc1\.42C00D/);
    expect(body.processing.status).toBe("complete");
    const reasons = (body.data.diagnostics.stageErrors ?? []).map((e: { error?: string; reason?: string }) => JSON.stringify(e)).join(" ");
    expect(reasons).toMatch(/initialization segment/);
  });

  it("a media segment: video/iso.segment, semantic.segment media, complete at once", async () => {
    const { status, body } = await inspect(media("lt-media.m4s"), "profile=full");
    expect(status).toBe(200);
    expect(body.data.identity.mime).toBe("video/iso.segment");
    expect(body.data.semantic).toMatchObject({ semanticType: "video", segment: "media" });
    expect(body.processing.status).toBe("complete");
  });

  it("an FLC animation is a video: size, 25 fps and duration in fast, a thumbnail in full", async () => {
    const url = media("lt-anim.flc");
    const fast = await inspect(url, "profile=fast");
    expect(fast.body.data.semantic.semanticType).toBe("video");
    expect(fast.body.data.metadata.video).toMatchObject({ width: 96, height: 64, fps: 25, codec: "flic" });
    const full = await inspect(url, "profile=full");
    expect(full.body.data.preview.thumbnail.dimensions).toBe("96x64");
  }, 60_000);
});
