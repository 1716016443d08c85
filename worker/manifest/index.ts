export { inspectManifest, type FetchedManifest, type ManifestFacts, type ManifestFetcher, type PreviewPlan } from "./inspect-manifest.ts";
export { ManifestError } from "./manifest-error.ts";
export { manifestMimes, recognizeManifest, sniffManifest, type ManifestProtocol } from "./recognize.ts";
export * as manifestLimits from "./limits.ts";
export { manifestText, readStream } from "./read-stream.ts";
