/**
 * The Worker side of a manifest: the manifest's text (from the probe's head, or one capped GET), then the
 * facts with nested playlists fetched through the safe fetcher (SSRF checks on every hop, the inspection's
 * deadline, maxManifestBytes). A bad nested playlist is a ManifestError (the stage fails with its reason); one
 * the origin does not serve leaves the master's facts; the manifest's own fetch errors are the caller's ApiErrors (4xx).
 */
import { errors } from "../errors/api-error.ts";
import { readCapped, safeFetch, type FetchPolicy } from "../fetch/index.ts";
import type { RangeByteSource } from "../bytes/byte-source.ts";
import { inspectManifest, type FetchedManifest, type ManifestFacts } from "./inspect-manifest.ts";
import { maxManifestBytes } from "./limits.ts";
import { VariantUnavailableError } from "./manifest-error.ts";
import type { ManifestProtocol } from "./recognize.ts";

const decode = (bytes: Uint8Array) => new TextDecoder("utf-8", { fatal: false }).decode(bytes);

/** The whole manifest: the probe's head when it is all of it, else one GET capped at maxManifestBytes. */
export async function manifestText(head: Uint8Array, source: RangeByteSource, streamable: boolean, policy: FetchPolicy): Promise<FetchedManifest> {
  if (source.size !== undefined && source.size > maxManifestBytes) throw errors.tooLarge(maxManifestBytes);
  if (source.size !== undefined && head.byteLength >= source.size) return { text: decode(head), finalUrl: source.url };
  if (source.size !== undefined && streamable) {
    // The rest by one Range read (the head is not fetched twice).
    const rest = await source.read(head.byteLength, source.size - head.byteLength);
    const whole = new Uint8Array(head.byteLength + rest.byteLength);
    whole.set(head);
    whole.set(rest, head.byteLength);
    return { text: decode(whole), finalUrl: source.url };
  }
  return fetchManifest(source.url, policy, false);
}

/** A nested playlist (or a whole manifest of unknown size): one GET, capped. */
async function fetchManifest(url: string, policy: FetchPolicy, nested: boolean): Promise<FetchedManifest> {
  const { response, finalUrl } = await safeFetch(url, {}, policy);
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    if (!nested) throw response.status === 404 ? errors.notFound() : errors.badGateway(`The remote server answered ${response.status}.`);
    throw new VariantUnavailableError(`a variant playlist answered ${response.status}`);
  }
  return { text: decode(await readCapped(response, maxManifestBytes, policy.deadline)), finalUrl };
}

export async function readStream(protocol: ManifestProtocol, first: FetchedManifest, policy: FetchPolicy): Promise<ManifestFacts> {
  return inspectManifest(protocol, first, (url) => fetchManifest(url, policy, true));
}
