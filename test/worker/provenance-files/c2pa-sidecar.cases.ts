// Sidecar C2PA manifest stores: declared by the response (Link: <...>; rel="c2pa-manifest") or by the XMP
// (dcterms:provenance, written by exiftool), fetched after the first answer through the checked fetch path and read
// by the CAI's SDK. The stores are C2PA's own signed test manifest lifted out of its test image
// (testkit/c2pa-sidecar-fixtures.ts), so the manifest read must be the one the embedded copy gives.
import { describe, expect, it } from "vitest";
import { inspect, media, origin } from "../../../testkit/worker/helpers.ts";

const link = (target: string) => `link=${encodeURIComponent(`<${target}>; rel="c2pa-manifest"`)}`;
const manifest = {
  claimGenerator: "make_test_images/0.33.1 c2pa-rs/0.33.1",
  signer: "C2PA Test Signing Cert",
  signedAt: "2024-08-06T21:53:37Z",
  actions: ["c2pa.created"],
  digitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/algorithmicMedia",
};

describe("sidecar C2PA manifest stores", { timeout: 60_000 }, () => {
  it("the embedded store of C.jpg and its sidecar copy give the same manifest", async () => {
    const embedded = await inspect(media("C.jpg"), "profile=full");
    expect(embedded.body.data.provenance.c2pa.activeManifest).toEqual(manifest);
  });

  it("a Link header: fast leaves the stage pending, full reads the store (signature checked, binding to the asset not checkable)", async () => {
    const url = media("sidecar-plain.jpg", link("C.c2pa"));
    const fast = await inspect(url, "profile=fast");
    expect(fast.status).toBe(200);
    expect(fast.body.processing.pendingStages).toContain("metadata:provenance");
    const full = await inspect(url, "profile=full&debug=true");
    expect(full.body.data.provenance).toEqual({
      c2pa: { present: true, manifestUrl: `${origin}/media/C.c2pa`, activeManifest: manifest },
      aiGenerated: null,
    });
    expect(full.body.data.diagnostics.stages["metadata:provenance"]).toMatchObject({ state: "done", engine: "edge", requests: 1, method: "c2pa sidecar" });
  });

  it("an XMP dcterms:provenance reference, resolved against the asset's URL", async () => {
    const { body } = await inspect(media("sidecar-xmp.jpg"), "profile=full");
    expect(body.data.provenance.c2pa).toEqual({ present: true, manifestUrl: `${origin}/media/C.c2pa`, activeManifest: manifest });
  });

  it("a sidecar whose signature is broken is invalid, with the SDK's code", async () => {
    const { body } = await inspect(media("sidecar-plain.jpg", link("C-bad-signature.c2pa")), "profile=full");
    expect(body.data.provenance.c2pa).toMatchObject({ present: true, validation: "invalid", failures: ["claimSignature.mismatch"] });
    expect(body.data.provenance.aiGenerated).not.toBe(true);
  });

  for (const [name, target] of [["missing", "nope.c2pa"], ["60 MB", `${origin}/huge`], ["refused address", "http://10.0.0.5/m.c2pa"]] as const) {
    it(`a ${name} sidecar: manifest.inaccessible, the reason in the stage, 200`, async () => {
      const { status, body } = await inspect(media("sidecar-plain.jpg", link(target)), "profile=full&debug=true");
      expect(status).toBe(200);
      expect(body.data.provenance.c2pa).toMatchObject({ present: false, failures: ["manifest.inaccessible"] });
      const stage = body.data.diagnostics.stages["metadata:provenance"];
      expect(stage.state).toBe("done");
      expect(stage.method).toMatch(/^left out: c2pa sidecar: /);
    });
  }

  it("a sidecar that holds no manifest store: none present, nothing invented", async () => {
    const { body } = await inspect(media("sidecar-plain.jpg", link("garbage.c2pa")), "profile=full");
    expect(body.data.provenance).toEqual({ c2pa: { present: false, manifestUrl: `${origin}/media/garbage.c2pa` }, aiGenerated: null });
  });

  it("a Link header without the c2pa-manifest relation is no declaration", async () => {
    const { body } = await inspect(media("sidecar-plain.jpg", `link=${encodeURIComponent('<C.c2pa>; rel="preload", <x.css>; rel=stylesheet')}`), "profile=fast");
    expect(body.processing.completedStages).toContain("metadata:provenance");
    expect(body.data.provenance).toEqual({ c2pa: { present: false }, aiGenerated: null });
  });
});
