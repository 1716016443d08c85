/**
 * The layers, top to bottom, of the Worker, shared/ and the media runner: read by .dependency-cruiser.cjs (the
 * rules CI enforces) and by test/unit/architecture-doc.test.ts (docs/architecture.md must draw these rows).
 * Folders on one row are peers: neither imports the other.
 */

/** The Worker's folders, top (entry) to bottom (ground). Folders on one line are peers: neither imports the other. */
const workerLayers = [
  ["index.ts"], // entry: the fetch and queue handlers, the Durable Object and container classes
  ["http", "queue"], // routes and middleware; the queue consumer
  ["service"], // the API layer above the object: inspect service, edge cache, batch, jobs
  ["object", "idempotency"], // the resource Durable Object: its shell (the one file on its state), its rooms; the Idempotency-Key object
  ["stages"], // stage runners: first inspection, page, stream, edge image, oEmbed, revalidation
  ["dispatch", "webhook"], // runner jobs from the object; webhook deliveries
  ["record", "jobs"], // the record model stages write through; job records
  ["manifest", "image", "oembed", "previews"], // HLS/DASH parsing; image work (photon); the oEmbed client; stored previews
  ["probe"], // container readers over one bounded byte source
  ["page"], // HTML head and JSON-LD facts
  ["bytes", "runner"], // bounded Range reads; the media runner client and pool
  ["fetch", "rate"], // SSRF-checked outbound fetch; rate checks
  ["config"], // ground: settings and limits
  ["errors", "log", "encoding"],
];

/** The media runner's folders, top to bottom (its root files: server.ts > app.ts > config.ts, errors.ts). */
const runnerLayers = [
  ["server.ts"],
  ["app.ts"],
  ["http", "pipeline", "scheduling"],
  ["proxy"],
  ["media"],
  ["fetch"],
  ["config.ts", "errors.ts"],
];

/** shared/: the answer's projection on top, the stage registry in the middle, leaf shapes and helpers below. */
const sharedLayers = [
  ["projection"], // record -> answer (fields, processing, playback codecs)
  ["schemas"], // the API's and the record's zod schemas (StageName comes from the registry)
  ["stages", "providers"], // the stage registry; provider URL patterns
  ["shapes"], // leaf schemas: media facts, streaming/page, the runner's wire format, stage results
  ["media", "net", "format", "bytes"], // codec strings, browser support, address policy, formatting, byte helpers
  ["limits.ts"],
];

module.exports = { worker: workerLayers, shared: sharedLayers, runner: runnerLayers };
