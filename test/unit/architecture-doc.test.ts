import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// The layer tables of docs/architecture.md and the rules CI enforces (.dependency-cruiser-layers.cjs) are one list:
// a layer added to the rules without the picture (or the other way round) fails here.
const require = createRequire(import.meta.url);
const layers = require("../../.dependency-cruiser-layers.cjs") as Record<string, string[][]>;
const doc = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");

/** The first column of the table after `<!-- layers:<name> -->`, one row per layer, top to bottom. */
function documentedLayers(name: string): string[][] {
  const start = doc.indexOf(`<!-- layers:${name} -->`);
  expect(start, `docs/architecture.md has no layers:${name} table`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of doc.slice(start).split("\n").slice(3)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|")[1]!.split(",").map((cell) => cell.trim()));
  }
  return rows;
}

describe("docs/architecture.md", () => {
  for (const name of ["worker", "shared", "runner"]) {
    it(`draws the ${name} layers the CI rules enforce, in order`, () => {
      expect(documentedLayers(name)).toEqual(layers[name]);
    });
  }
});
