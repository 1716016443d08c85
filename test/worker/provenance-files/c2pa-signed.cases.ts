// Content Credentials on files the tests signed themselves with the CAI's SDK and test CAs
// (testkit/c2pa-signed-fixtures.ts): the service reports what each manifest declares, validates it as the SDK's own
// Reader does (trusted / valid / invalid), and gives the same answer in profile=fast as in profile=full.
import { describe, expect, it } from "vitest";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { claimGenerator, signedFiles, signedVariants, type SignedVariant } from "../../../testkit/c2pa-signed-variants.ts";
import type { ExiftoolReading } from "../../../testkit/provenance-fixtures.ts";
import { fixtureFacts } from "../../../testkit/worker/fixture-facts.ts";

const reference = await fixtureFacts("signedC2pa");

const signerOf = { trusted: "Media Inspect Test Trusted", untrusted: "Media Inspect Test Untrusted" } as const;
const validationOf: Record<SignedVariant, "trusted" | "valid" | "invalid"> = { ai: "trusted", capture: "trusted", composite: "trusted", untrusted: "valid", tampered: "invalid", tagged: "trusted" };

/** The tags the signed file kept, as exiftool reads them: time to the second, device, place, creator, copyright. */
function expectTagsOf(body: any, want: ExiftoolReading): void {
  const capture = body.data.metadata.capture;
  const rights = body.data.metadata.rights;
  expect(capture.takenAt.replace(/\D/g, "").slice(0, 14)).toBe(want.takenAt!.replace(/\D/g, "").slice(0, 14));
  expect(capture.device?.make).toBe(want.make);
  expect(capture.device?.model).toBe(want.model);
  if (want.latitude !== undefined) {
    expect(Math.abs(capture.location.latitude - want.latitude)).toBeLessThan(1e-5);
    expect(Math.abs(capture.location.longitude - want.longitude!)).toBeLessThan(1e-5);
  } else expect(capture.location).toBeUndefined();
  expect(rights?.creator).toBe(want.creator);
  expect(rights?.copyright).toBe(want.copyright);
}
const sdkState = { trusted: "Trusted", valid: "Valid", invalid: "Invalid" } as const;

describe("signed by the tests: each manifest's declarations and validation, as signed and as the SDK reads them", () => {
  for (const { file, variant } of signedFiles) {
    it(file, async () => {
      const declared = signedVariants[variant];
      const sdk = reference[file]!;
      const { status, body } = await inspect(media(file), "profile=full");
      expect(status).toBe(200);
      const { c2pa, aiGenerated, aiBasis } = body.data.provenance;
      expect(c2pa.present).toBe(true);
      const sourceType = declared.actions.map((a) => (a as { digitalSourceType?: string }).digitalSourceType).find(Boolean)!;
      expect(c2pa.activeManifest).toEqual({
        claimGenerator,
        signer: signerOf[declared.ca],
        actions: declared.actions.map((a) => a.action),
        digitalSourceType: sourceType,
        // No time-stamp authority signed these (none on loopback): there is no signing time to report.
        ...(sdk.time ? { signedAt: expect.any(String) } : {}),
      });
      expect(c2pa.validation).toBe(validationOf[variant]);
      // The SDK's own reading agrees, on every field the service reports.
      expect(sdk.state).toBe(sdkState[validationOf[variant]]);
      expect([sdk.claimGenerator, sdk.issuer, sdk.actions, sdk.digitalSourceType]).toEqual([claimGenerator, signerOf[declared.ca], c2pa.activeManifest.actions, sourceType]);
      if (variant === "tampered") {
        expect(c2pa.failures).toEqual(sdk.failures);
        expect(c2pa.failures.join(" ")).toMatch(/Hash\.mismatch/);
      } else expect(c2pa.failures).toBeUndefined();
      const ai = !sourceType.endsWith("/digitalCapture");
      expect(aiGenerated).toBe(ai);
      expect(aiBasis).toBe(`c2pa:digitalSourceType:${sourceType.split("/").pop()}`);
      if (sdk.exiftool) expectTagsOf(body, sdk.exiftool);
      else {
        // A manifest is no capture or rights tag: nothing invented there.
        expect(body.data.metadata.capture).toBeUndefined();
        expect(body.data.metadata.rights).toBeUndefined();
      }
    });
  }
});

describe("profile=fast gives what profile=full gives, for files with the manifest in their head", () => {
  for (const { file } of signedFiles.filter(({ format }) => ["jpg", "png", "webp", "mp4"].includes(format))) {
    it(file, async () => {
      const fast = await inspect(media(file), "profile=fast");
      const full = await inspect(media(file), "profile=full");
      expect(fast.status).toBe(200);
      expect(fast.body.processing.completedStages).toContain("metadata:provenance");
      expect(fast.body.data.provenance).toEqual(full.body.data.provenance);
      expect(fast.body.data.metadata.capture).toEqual(full.body.data.metadata.capture);
      expect(fast.body.data.metadata.rights).toEqual(full.body.data.metadata.rights);
    });
  }
});
