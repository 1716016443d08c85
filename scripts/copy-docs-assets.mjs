// Builds public/vendor (gitignored) so every page works offline (no CDN):
// - the Swagger UI bundle for /api-docs;
// - the blurhash package's ESM build, which the playground imports to decode placeholders in the browser;
// - the playground script, bundled from public/playground/src (TypeScript) by esbuild, which wrangler ships.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const vendor = join(root, "public", "vendor");

/** Another `npm start` may be serving the file while this one writes it: it sees the old bytes or the new, never half. */
function writeAtomically(target, bytes) {
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, target);
}

function copyFrom(pkg, files, targetDir) {
  const dist = dirname(require.resolve(`${pkg}/package.json`));
  mkdirSync(targetDir, { recursive: true });
  // Only when changed: wrangler dev watches public/ and reloads the Worker on every write, which cut off POSTs
  // in flight right after "Ready on" (the build runs again at start-up) and in any other running `npm start`.
  for (const [from, to] of files) {
    const source = join(dist, from);
    const target = join(targetDir, to);
    const bytes = readFileSync(source);
    if (!existsSync(target) || !readFileSync(target).equals(bytes)) writeAtomically(target, bytes);
  }
}

copyFrom("swagger-ui-dist", [["swagger-ui-bundle.js", "swagger-ui-bundle.js"], ["swagger-ui.css", "swagger-ui.css"]],
  join(vendor, "swagger-ui-dist"));

const blurhashPath = "/vendor/blurhash/blurhash.js";
copyFrom("blurhash", [["dist/esm/index.js", "blurhash.js"], ["dist/esm/index.js.map", "index.js.map"]], join(vendor, "blurhash"));

const bundled = await build({
  entryPoints: [join(root, "public", "playground", "src", "main.ts")],
  outfile: join(vendor, "playground", "playground.js"),
  // Written below only when changed, like the copies above.
  write: false,
  bundle: true,
  format: "esm",
  target: "es2020",
  sourcemap: true,
  logLevel: "warning",
  // `blurhash` stays a separate file (the package's own ESM build, copied above), loaded from this origin.
  plugins: [{
    name: "blurhash-from-vendor",
    setup(b) {
      b.onResolve({ filter: /^blurhash$/ }, () => ({ path: blurhashPath, external: true }));
    },
  }],
});
mkdirSync(join(vendor, "playground"), { recursive: true });
for (const file of bundled.outputFiles) {
  if (!existsSync(file.path) || !readFileSync(file.path).equals(file.contents)) writeAtomically(file.path, file.contents);
}
