import type { C2pa } from "../../shared/shapes/provenance.ts";
import { c2paSdkLoadTimeoutMs, metadataParserTimeoutMs } from "../config/limits.ts";
import { c2paSdk } from "./c2pa-sdk.ts";
import { withDeadline } from "./deadline.ts";
import { text } from "./capture-rights.ts";
import { indexOfBytes } from "../bytes/byte-search.ts";

const jumbfType = new TextEncoder().encode("jumb");
const c2paLabel = new TextEncoder().encode("c2pa");

/** Failure codes that only say the asset's bytes were not all there to hash (the file was read in part). */
const hashCodes = new Set(["assertion.dataHash.mismatch", "assertion.bmffHash.mismatch", "assertion.boxesHash.mismatch", "assertion.collectionHash.mismatch"]);
/** Not a failure of the signature: the signer is just not on the configured trust list. */
const untrustedCode = "signingCredential.untrusted";

/**
 * Whether the bytes carry a C2PA manifest store: a JUMBF superbox (`jumb`) whose description box is labelled
 * `c2pa` (JPEG APP11, PNG caBX, WebP/RIFF C2PA chunk, ISO BMFF uuid box, ID3 GEOB and WAV C2PA chunks all embed
 * the same store). A byte search that decides whether to wake the SDK, not a parse: reading is the SDK's job.
 */
export function hasC2paStore(b: Uint8Array): boolean {
  for (let i = indexOfBytes(b, jumbfType, 0); i >= 0; i = indexOfBytes(b, jumbfType, i + 4)) {
    const window = b.subarray(i, Math.min(b.length, i + 64));
    if (indexOfBytes(window, c2paLabel, 0) >= 0) return true;
  }
  return false;
}

/**
 * The C2PA facts of bytes already read, by the CAI's SDK: the active manifest's claim generator, signer, time,
 * actions and digital source type, and the SDK's own validation state against `trustAnchors` (PEM). The hashes
 * bind the manifest to every byte of the asset, so they are checked only when `whole`; otherwise `validation`
 * is left out unless the signature itself failed. A store the SDK cannot read is present and invalid.
 */
export async function readC2pa(mime: string, bytes: Uint8Array, whole: boolean, trustAnchors = ""): Promise<C2pa> {
  if (!hasC2paStore(bytes)) return { present: false };
  const settings = {
    verify: { verify_trust: trustAnchors !== "", ocsp_fetch: false, remote_manifest_fetch: false },
    ...(trustAnchors !== "" ? { trust: { trust_anchors: trustAnchors } } : {}),
  };
  let reader: { json(): string; activeManifest(): unknown; free(): void };
  // Compiling the SDK is the service's own cost, not the file's: if it fails, the store is present and unread.
  const sdk = await withDeadline(c2paSdk(), c2paSdkLoadTimeoutMs, "c2pa sdk load");
  try {
    reader = await withDeadline(sdk.WasmReader.fromBytes(mime, bytes, JSON.stringify(settings)), metadataParserTimeoutMs, "c2pa");
  } catch (err) {
    const reason = String(err instanceof Error ? err.message : err).slice(0, 160);
    if (/JumbfNotFound|ManifestNotFound/.test(reason)) return { present: false };
    return { present: true, validation: "invalid", failures: [reason] };
  }
  try {
    const store = JSON.parse(reader.json()) as { validation_state?: string; validation_results?: { activeManifest?: { failure?: { code: string }[] } } };
    const manifest = reader.activeManifest() as ManifestJson | undefined;
    const codes = (store.validation_results?.activeManifest?.failure ?? []).map((f) => f.code)
      .filter((code) => code !== untrustedCode && (whole || !hashCodes.has(code)));
    const state = store.validation_state;
    const validation: C2pa["validation"] = codes.length > 0 ? "invalid"
      : !whole ? undefined : state === "Trusted" ? "trusted" : state === "Valid" || state === "Trusted" ? "valid" : "invalid";
    return {
      present: true,
      ...(manifest ? { activeManifest: activeManifestOf(manifest) } : {}),
      ...(validation ? { validation } : {}),
      ...(codes.length > 0 ? { failures: codes.slice(0, 16) } : {}),
    };
  } finally {
    reader.free();
  }
}

interface ManifestJson {
  claim_generator?: string;
  claim_generator_info?: { name?: string; version?: string }[];
  signature_info?: { issuer?: string; common_name?: string; time?: string };
  assertions?: { label?: string; data?: { actions?: { action?: string; digitalSourceType?: string }[] } }[];
}

function activeManifestOf(m: ManifestJson): NonNullable<C2pa["activeManifest"]> {
  const info = m.claim_generator_info?.[0];
  const claimGenerator = text(m.claim_generator) ?? text([info?.name, info?.version].filter(Boolean).join(" "));
  const actions = (m.assertions ?? []).filter((a) => a.label?.startsWith("c2pa.actions")).flatMap((a) => a.data?.actions ?? []);
  const names = [...new Set(actions.map((a) => text(a.action)).filter((n): n is string => n !== undefined))].slice(0, 64);
  const sourceType = actions.map((a) => text(a.digitalSourceType)).find((t) => t !== undefined);
  const signedAt = text(m.signature_info?.time);
  return {
    ...(claimGenerator ? { claimGenerator } : {}),
    ...(text(m.signature_info?.issuer) ? { signer: text(m.signature_info?.issuer)! } : {}),
    ...(signedAt && !Number.isNaN(Date.parse(signedAt)) ? { signedAt: new Date(signedAt).toISOString().replace(/\.000Z$/, "Z") } : {}),
    actions: names,
    ...(sourceType ? { digitalSourceType: sourceType } : {}),
  };
}
