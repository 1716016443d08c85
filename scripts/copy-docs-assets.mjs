// Builds public/vendor (gitignored) so every page works offline (no CDN):
// - the Swagger UI bundle for /api-docs;
// - the blurhash package's ESM build, which the playground imports to decode placeholders in the browser;
// - the playground script, bundled from public/playground/src (TypeScript) by esbuild, which wrangler ships.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const vendor = join(root, "public", "vendor");

function copyFrom(pkg, files, targetDir) {
  const dist = dirname(require.resolve(`${pkg}/package.json`));
  mkdirSync(targetDir, { recursive: true });
  // Only when changed: wrangler dev watches public/ and reloads the Worker on every write, which cut off POSTs
  // in flight right after "Ready on" (the build runs again at start-up) and in any other running `npm start`.
  for (const [from, to] of files) {
    const source = join(dist, from);
    const target = join(targetDir, to);
    if (!existsSync(target) || !readFileSync(target).equals(readFileSync(source))) copyFileSync(source, target);
  }
}

copyFrom("swagger-ui-dist", [["swagger-ui-bundle.js", "swagger-ui-bundle.js"], ["swagger-ui.css", "swagger-ui.css"]],
  join(vendor, "swagger-ui-dist"));

const blurhashPath = "/vendor/blurhash/blurhash.js";
copyFrom("blurhash", [["dist/esm/index.js", "blurhash.js"], ["dist/esm/index.js.map", "index.js.map"]], join(vendor, "blurhash"));

await build({
  entryPoints: [join(root, "public", "playground", "src", "main.ts")],
  outfile: join(vendor, "playground", "playground.js"),
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
