import { describe } from "vitest";

/**
 * Provenance at the edge: C2PA manifests in files the tests sign, sidecar .c2pa links, capture and rights facts.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in provenance-files/ and its hooks inside its own describe block.
 */
describe("c2pa-sidecar", async () => {
  await import("./provenance-files/c2pa-sidecar.cases.ts");
});
describe("c2pa-signed", async () => {
  await import("./provenance-files/c2pa-signed.cases.ts");
});
describe("provenance", async () => {
  await import("./provenance-files/provenance.cases.ts");
});
