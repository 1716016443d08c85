// Copies the Swagger UI bundle into public/vendor so /api-docs needs no CDN (works offline).
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const dist = dirname(require.resolve("swagger-ui-dist/package.json"));
const target = join(root, "public", "vendor", "swagger-ui-dist");
mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) copyFileSync(join(dist, file), join(target, file));
