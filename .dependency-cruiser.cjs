/**
 * The layer rules (docs/architecture.md draws them). Each folder is one layer; a module may import
 * its own folder and folders listed after its own, never one before it ("up"). Run by `npm run lint:layers`
 * in `.ci/run`: any import against these rules fails CI. Type-only imports count too (no type cycles).
 */

const { worker: workerLayers, runner: runnerLayers, shared: sharedLayers } = require("./.dependency-cruiser-layers.cjs");

const escape = (s) => s.replace(/[.]/g, "\\.");
const pathOf = (root, name) => (name.endsWith(".ts") ? `^${root}/${escape(name)}$` : `^${root}/${name}/`);

/** The Durable Object shells: constructor, RPC methods and alarm, and the only files on an object's state. */
const objectShells = ["^worker/object/resource-object\\.ts$", "^worker/idempotency/idempotency-object\\.ts$"];
/** Table modules, each handed the object's SQLite handle by its shell. */
const objectTables = ["^worker/object/record-store\\.ts$", "^worker/jobs/job-store\\.ts$", "^worker/dispatch/dispatch-ledger\\.ts$", "^worker/idempotency/idempotency-store\\.ts$"];

/** One rule per layer: nothing in it imports a layer above it, or a peer on its own line. */
function layerRules(root, layers, label) {
  const rules = [];
  layers.forEach((line, i) => {
    const above = layers.slice(0, i).flat();
    for (const name of line) {
      const forbidden = [...above, ...line.filter((peer) => peer !== name)];
      if (forbidden.length === 0) continue;
      rules.push({
        name: `${label}-${name.replace(/\.ts$/, "")}-imports-down`,
        comment: `${root}/${name} may import only its own folder and the layers below it`,
        severity: "error",
        from: { path: pathOf(root, name) },
        to: { path: forbidden.map((f) => pathOf(root, f)) },
      });
    }
  });
  // Every file must sit in a declared layer, so a new folder cannot escape the rules unnoticed.
  rules.push({
    name: `${label}-folder-declared`,
    comment: `every module under ${root}/ belongs to a layer named in .dependency-cruiser.cjs`,
    severity: "error",
    from: { path: `^${root}/`, pathNot: layers.flat().map((n) => pathOf(root, n)) },
    to: {},
  });
  rules.push({
    name: `${label}-import-into-declared-folder`,
    comment: `imports reach only modules of ${root}/ that belong to a declared layer`,
    severity: "error",
    from: {},
    to: { path: `^${root}/`, pathNot: layers.flat().map((n) => pathOf(root, n)) },
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "no import cycle, type-only imports included",
      severity: "error",
      from: { path: "^(worker|shared|media-runner/src)/" },
      to: { circular: true },
    },
    {
      name: "shared-stands-alone",
      comment: "shared/ is used by the Worker and the runner and imports neither (nor the team's ../shared)",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: ["^worker/", "^media-runner/", "^test/", "^bench/", "^\\.\\./"] },
    },
    {
      name: "runner-not-worker",
      comment: "the runner and the Worker meet only through shared/ schemas",
      severity: "error",
      from: { path: "^media-runner/src/" },
      to: { path: "^worker/" },
    },
    {
      name: "worker-not-runner",
      severity: "error",
      from: { path: "^worker/" },
      to: { path: "^media-runner/" },
    },
    {
      name: "product-not-tests",
      comment: "product code never imports tests, benchmarks or scripts",
      severity: "error",
      from: { path: "^(worker|shared|media-runner/src)/" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "bench-not-tests",
      comment: "benchmarks share support with tests through testkit/, never by importing test/",
      severity: "error",
      from: { path: "^bench/" },
      to: { path: "^test/" },
    },
    {
      name: "testkit-stands-below-tests-and-bench",
      comment: "testkit/ is support shared by tests and benchmarks: it imports neither",
      severity: "error",
      from: { path: "^testkit/" },
      to: { path: "^(test|bench)/" },
    },
    // Doors. A Durable Object's state (its SQLite handle, storage and alarm) is touched by its shell alone; the
    // rooms get what they need from it. The property accesses themselves (ctx.storage, THUMBNAILS) are checked by
    // test/unit/state-and-bucket-doors.test.ts; these rules hold the imports around them.
    {
      name: "object-state-in-shells",
      comment: "only the Durable Object shells extend DurableObject (cloudflare:workers)",
      severity: "error",
      from: { path: "^worker/", pathNot: objectShells },
      to: { path: "^cloudflare:workers$" },
    },
    {
      name: "tables-opened-by-shells",
      comment: "a table module (handed the object's SQLite) is constructed by a shell only; others import its types",
      severity: "error",
      from: { path: "^worker/", pathNot: objectShells },
      to: { path: objectTables, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "previews-one-door",
      comment: "outside worker/previews/, previews are reached through preview-store.ts only (keys are named inside)",
      severity: "error",
      from: { path: "^worker/", pathNot: "^worker/previews/" },
      to: { path: "^worker/previews/", pathNot: "^worker/previews/preview-store\\.ts$" },
    },
    {
      name: "idempotency-through-service",
      comment: "the Idempotency-Key object is reached through service/ (http/ never addresses it itself)",
      severity: "error",
      from: { path: "^worker/", pathNot: ["^worker/idempotency/", "^worker/service/", "^worker/index\\.ts$"] },
      to: { path: "^worker/idempotency/" },
    },
    ...layerRules("worker", workerLayers, "worker"),
    ...layerRules("media-runner/src", runnerLayers, "runner"),
    ...layerRules("shared", sharedLayers, "shared"),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|\\.d\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6"],
  },
};
