// Copies the Swagger UI bundle into public/vendor so /api-docs needs no CDN (works offline).
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const dist = dirname(require.resolve("swagger-ui-dist/package.json"));
const target = join(root, "public", "vendor", "swagger-ui-dist");
mkdirSync(target, { recursive: true });
// Only when changed: wrangler dev watches public/ and reloads the Worker on every write, which cut off POSTs
// in flight right after "Ready on" (the build runs again at start-up) and in any other running `npm start`.
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  const from = join(dist, file);
  const to = join(target, file);
  if (!existsSync(to) || !readFileSync(to).equals(readFileSync(from))) copyFileSync(from, to);
}
