/**
 * Files the tests sign themselves with the CAI's C2PA SDK (@contentauth/c2pa-wasm WasmBuilder) and the test CAs of
 * test/fixtures/c2pa-test-ca: for each format the SDK signs, an AI-generated creation, a camera capture and an
 * edit composited with AI (all by the trusted CA), a capture signed by the untrusted CA, and an AI creation whose
 * media bytes were changed after signing. The SDK's own Reader then reads each back: that reading is the reference.
 * Signatures are randomised (ECDSA), so the files are made at set-up, not committed; made once, then skipped.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "@contentauth/c2pa-wasm";
import { makeMissing } from "./make-missing.ts";
import { testSigner } from "./c2pa-test-signer.ts";
import { signedFiles, signedFile, signedFormats, signedVariants, taggedBases, type SdkReading, type SignedFormat, type SignedVariant } from "./c2pa-signed-variants.ts";
import { exiftoolReadingOf } from "./provenance-more-fixtures.ts";

/** Unsigned media made by ffmpeg (heif-enc for HEIF), one small file per format. */
const baseCommands: Record<SignedFormat, (out: string, png: string) => [string, string[]]> = {
  jpg: (out) => ["ffmpeg", [...still, "-f", "mjpeg", out]],
  png: (out) => ["ffmpeg", [...still, "-f", "image2", "-c:v", "png", out]],
  webp: (out) => ["ffmpeg", [...still, "-f", "webp", out]],
  mp4: (out) => ["ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", out]],
  wav: (out) => ["ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.5", "-f", "wav", out]],
  mp3: (out) => ["ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.5", "-c:a", "libmp3lame", "-f", "mp3", out]],
  avif: (out) => ["ffmpeg", [...still, "-c:v", "libaom-av1", "-still-picture", "1", "-f", "avif", out]],
  heic: (out, png) => ["heif-enc", ["-o", out, png]],
};
const still = ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:d=1", "-frames:v", "1"];

/** Node has no FileReaderSync, which the SDK's Blob stream reads with: one over blobs that keep their bytes. */
class BytesBlob extends Blob {
  constructor(readonly data: Uint8Array) {
    super([new Uint8Array(data)]);
  }
  override slice(start?: number, end?: number): BytesBlob {
    return new BytesBlob(this.data.subarray(start, end));
  }
}

let ready = false;
function loadSdk(): void {
  if (ready) return;
  (globalThis as { FileReaderSync?: unknown }).FileReaderSync ??= class {
    readAsArrayBuffer(blob: BytesBlob): ArrayBuffer {
      return new Uint8Array(blob.data).buffer;
    }
  };
  sdk.initSync({ module: readFileSync(join(import.meta.dirname, "..", "node_modules", "@contentauth", "c2pa-wasm", "pkg", "c2pa_bg.wasm")) });
  ready = true;
}

async function signed(variant: SignedVariant, format: SignedFormat, base: Uint8Array): Promise<Uint8Array> {
  const { ca, actions, tamper } = signedVariants[variant];
  const mime = signedFormats[format];
  const definition = {
    claim_generator_info: [{ name: "media-inspect tests", version: "1.0" }],
    title: signedFile(variant, format),
    format: mime,
    assertions: [{ label: "c2pa.actions", data: { actions } }],
  };
  const builder = sdk.WasmBuilder.fromJson(JSON.stringify(definition));
  try {
    if (variant === "composite") {
      await builder.addIngredientFromBlob(JSON.stringify({ title: `base.${format}`, relationship: "parentOf", label: "parent" }), mime, new BytesBlob(base));
    }
    const out = Buffer.from(await builder.sign(testSigner(ca), [], mime, new BytesBlob(base)));
    return tamper ? tampered(out, base) : out;
  } finally {
    builder.free();
  }
}

/** One media byte changed after signing: in the last 32 bytes of the base file that occur once in the signed file. */
function tampered(out: Buffer, base: Uint8Array): Buffer {
  for (let end = base.length - 8; end >= 32; end -= 13) {
    const needle = base.subarray(end - 32, end);
    const at = out.indexOf(needle);
    if (at < 0 || out.indexOf(needle, at + 1) >= 0) continue;
    out[at + 16] = out[at + 16]! ^ 0x01;
    return out;
  }
  throw new Error("tamper: no run of the base file occurs once in the signed file");
}

/**
 * Makes the signed files `dir` lacks (unsigned bases under dir/base; the tagged variant's from `taggedDir`, the
 * provenance fixtures' folder) and returns `dir`.
 */
export async function ensureSignedC2paFixtures(dir: string, taggedDir: string): Promise<string> {
  const formats = Object.keys(signedFormats) as SignedFormat[];
  // The HEIF is encoded from the PNG, made before it.
  const baseDir = makeMissing(join(dir, "base"), formats.map((f) => `base.${f}`), (file, partial) => {
    const [tool, args] = baseCommands[file.slice(5) as SignedFormat](partial, join(dir, "base", "base.png"));
    execFileSync(tool, args, { stdio: ["ignore", "ignore", "pipe"] });
  });
  if (signedFiles.every(({ file }) => existsSync(join(dir, file)))) return dir;
  loadSdk();
  for (const { file, variant, format } of signedFiles) {
    if (existsSync(join(dir, file))) continue;
    const base = variant === "tagged" ? join(taggedDir, taggedBases[format]!) : join(baseDir, `base.${format}`);
    const bytes = await signed(variant, format, readFileSync(base));
    makeMissing(dir, [file], (_, partial) => writeFileSync(partial, bytes));
  }
  return dir;
}

/** The SDK Reader's reading of every signed file, against the PEM trust list `trustAnchors`. */
export async function sdkReadings(dir: string, taggedDir: string, trustAnchors: string): Promise<Record<string, SdkReading>> {
  loadSdk();
  const settings = JSON.stringify({ verify: { verify_trust: true, ocsp_fetch: false, remote_manifest_fetch: false }, trust: { trust_anchors: trustAnchors } });
  const out: Record<string, SdkReading> = {};
  for (const { file, format, variant } of signedFiles) {
    const reader = await sdk.WasmReader.fromBytes(signedFormats[format], readFileSync(join(dir, file)), settings);
    try {
      const store = JSON.parse(reader.json()) as { validation_state: string; validation_results?: { activeManifest?: { failure?: { code: string }[] } } };
      const m = reader.activeManifest() as {
        claim_generator_info?: { name?: string; version?: string }[];
        signature_info?: { issuer?: string; time?: string };
        assertions?: { label?: string; data?: { actions?: { action: string; digitalSourceType?: string }[] } }[];
      };
      const actions = (m.assertions ?? []).filter((a) => a.label?.startsWith("c2pa.actions")).flatMap((a) => a.data?.actions ?? []);
      const info = m.claim_generator_info?.[0];
      out[file] = {
        state: store.validation_state,
        failures: (store.validation_results?.activeManifest?.failure ?? []).map((f) => f.code),
        ...(info ? { claimGenerator: [info.name, info.version].filter(Boolean).join(" ") } : {}),
        ...(m.signature_info?.issuer ? { issuer: m.signature_info.issuer } : {}),
        ...(m.signature_info?.time ? { time: m.signature_info.time } : {}),
        actions: actions.map((a) => a.action),
        ...(actions.find((a) => a.digitalSourceType) ? { digitalSourceType: actions.find((a) => a.digitalSourceType)!.digitalSourceType } : {}),
        // exiftool reads the base: signing adds a manifest, never a tag, and exiftool 12's reading of a PNG whose
        // caBX chunk precedes its eXIf stops at "IFD0 pointer references previous JUMBFBox directory".
        ...(variant === "tagged" ? { exiftool: exiftoolReadingOf(taggedDir, taggedBases[format]!) } : {}),
      };
    } finally {
      reader.free();
    }
  }
  return out;
}

/** The SDK's reading of the signed files against the Worker tests' own trust list (vitest.config.ts). */
export const signedC2paReadings = (dir: string, taggedDir: string) =>
  sdkReadings(dir, taggedDir, readFileSync(join(import.meta.dirname, "..", "test", "fixtures", "c2pa", "test-trust-anchors.pem"), "utf8"));
