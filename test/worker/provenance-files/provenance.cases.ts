// Capture, rights and provenance facts, checked against exiftool's own reading of files exiftool tagged
// (testkit/provenance-fixtures.ts), and hostile XMP answered quickly with the facts left out.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const reference = await fixtureFacts("provenanceFacts");

/** "2024:05:06 07:08:09+02:00" (exiftool) and "2024-05-06T07:08:09+02:00" (ISO) to one comparable form. */
function normalTime(value: string): string {
  const digits = value.replace(/[^0-9+\-Z]/g, "").replace(/^(\d{4})-?(\d{2})-?(\d{2})/, "$1$2$3");
  return digits.replace(/Z$/, "");
}

describe("capture and rights agree with exiftool, in profile=fast", () => {
  for (const file of Object.keys(reference)) {
    it(`${file}`, async () => {
      const want = reference[file]!;
      const { status, body } = await inspect(media(file), "profile=fast");
      expect(status).toBe(200);
      const capture = body.data.metadata.capture;
      const rights = body.data.metadata.rights;
      expect(body.processing.completedStages).toContain("metadata:provenance");
      if (want.takenAt) expect(normalTime(capture.takenAt)).toBe(normalTime(want.takenAt));
      else expect(capture?.takenAt).toBeUndefined();
      expect(capture?.device?.make).toBe(want.make);
      expect(capture?.device?.model).toBe(want.model);
      if (want.latitude !== undefined) {
        expect(Math.abs(capture.location.latitude - want.latitude)).toBeLessThan(1e-5);
        expect(Math.abs(capture.location.longitude - want.longitude!)).toBeLessThan(1e-5);
      } else expect(capture?.location).toBeUndefined();
      expect(rights?.creator).toBe(want.creator);
      expect(rights?.copyright).toBe(want.copyright);
      // Only a declaration makes aiGenerated true; these files have no C2PA manifest.
      expect(body.data.provenance.c2pa.present).toBe(false);
      expect(body.data.provenance.aiGenerated).toBe(want.digitalSourceType?.endsWith("/trainedAlgorithmicMedia") ? true : null);
    });
  }

  it("reads the camera JPEG's offset, altitude below sea level, licence URL, credit and usage terms", async () => {
    const { body } = await inspect(media("tagged-camera.jpg"), "profile=fast");
    expect(body.data.metadata.capture).toEqual({
      takenAt: "2024-05-06T07:08:09+02:00",
      device: { make: "Canon", model: "EOS R5", software: "Firmware 1.2" },
      location: { latitude: expect.closeTo(-33.865143, 5), longitude: expect.closeTo(151.2099, 5), altitudeM: -12 },
    });
    expect(body.data.metadata.rights).toEqual({
      creator: "Jane Doe", copyright: "(c) 2024 Jane Doe", license: "https://creativecommons.org/licenses/by/4.0/",
      credit: "Doe Agency", usageTerms: "Attribution required",
    });
  });

  it("names the IPTC declaration behind aiGenerated", async () => {
    const { body } = await inspect(media("tagged-ai.jpg"), "profile=fast");
    expect(body.data.provenance).toEqual({ c2pa: { present: false }, aiGenerated: true, aiBasis: "iptc:digitalSourceType:trainedAlgorithmicMedia" });
  });

  it("invents nothing for a file without metadata", async () => {
    const { body } = await inspect(media("untagged.jpg"), "profile=full");
    expect(body.data.metadata.capture).toBeUndefined();
    expect(body.data.metadata.rights).toBeUndefined();
    expect(body.data.provenance).toEqual({ c2pa: { present: false }, aiGenerated: null });
  });

  it("fields=provenance and fields=metadata.capture keep only those parts", async () => {
    const url = media("tagged-phone.mov");
    const only = await inspect(url, "profile=fast&fields=provenance");
    expect(Object.keys(only.body.data)).toEqual(["provenance"]);
    const capture = await inspect(url, "profile=fast&fields=metadata.capture");
    expect(Object.keys(capture.body.data)).toEqual(["metadata"]);
    expect(Object.keys(capture.body.data.metadata)).toEqual(["capture"]);
    expect(capture.body.data.metadata.capture.device).toEqual({ make: "Apple", model: "iPhone 15 Pro", software: "17.5" });
  });
});

describe("hostile metadata is answered quickly with the fact left out", () => {
  for (const file of ["xmp-1gb-declared.png", "xmp-billion-laughs.jpg", "xmp-oversized.jpg"]) {
    it(`${file}`, async () => {
      const { status, body } = await inspect(media(file), "profile=full");
      expect(status).toBe(200);
      expect(body.data.metadata.rights?.creator ?? "").not.toMatch(/haha/);
      expect(JSON.stringify(body).length).toBeLessThan(200_000);
      const stage = body.data.diagnostics.stages["metadata:provenance"];
      expect(stage.state === "done" || stage.state === "failed").toBe(true);
    });
  }
});

describe("C2PA Content Credentials, read and validated by the CAI's SDK", () => {
  it("C2PA's own signed test image: present, its actions, signer, trusted against the configured trust list", async () => {
    const { status, body } = await inspect(media("C.jpg"), "profile=fast");
    expect(status).toBe(200);
    expect(body.data.provenance.c2pa).toEqual({
      present: true,
      activeManifest: {
        claimGenerator: "make_test_images/0.33.1 c2pa-rs/0.33.1",
        signer: "C2PA Test Signing Cert",
        signedAt: "2024-08-06T21:53:37Z",
        actions: ["c2pa.created"],
        digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/algorithmicMedia",
      },
      validation: "trusted",
    });
    // algorithmicMedia is not a trained model, nor a capture: nothing declared either way.
    expect(body.data.provenance.aiGenerated).toBeNull();
  });

  it("an edited image lists every action", async () => {
    const { body } = await inspect(media("CA.jpg"), "profile=full");
    expect(body.data.provenance.c2pa.present).toBe(true);
    expect(body.data.provenance.c2pa.activeManifest.actions).toEqual(["c2pa.opened", "c2pa.color_adjustments"]);
    expect(body.data.provenance.c2pa.validation).toBe("trusted");
  });

  it("a flipped signature is invalid, with the SDK's failure code", async () => {
    const { status, body } = await inspect(media("c2pa-bad-signature.jpg"), "profile=fast");
    expect(status).toBe(200);
    expect(body.data.provenance.c2pa.present).toBe(true);
    expect(body.data.provenance.c2pa.validation).toBe("invalid");
    expect(body.data.provenance.c2pa.failures.join(" ")).toMatch(/signature/i);
    expect(body.data.provenance.aiGenerated).not.toBe(true);
  });

  for (const file of ["c2pa-truncated.jpg", "jumbf-loop.jpg", "jumbf-depth-bomb.jpg", "cbor-depth-bomb.jpg"]) {
    it(`${file}: answered 200, the manifest never trusted and no AI claim invented`, async () => {
      const { status, body } = await inspect(media(file), "profile=full");
      expect(status).toBe(200);
      const c2pa = body.data.provenance?.c2pa;
      expect(c2pa?.validation ?? "invalid").toBe("invalid");
      expect(c2pa?.activeManifest).toBeUndefined();
      expect(body.data.provenance?.aiGenerated ?? null).toBeNull();
    });
  }
});
