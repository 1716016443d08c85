import { describe } from "vitest";

/**
 * Facts from real files at the edge: camera photos, images, containers, format recognition, provenance at the file's end, the long tail.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in files-and-facts/ and its hooks inside its own describe block.
 */
describe("camera-files", async () => {
  await import("./files-and-facts/camera-files.cases.ts");
});
describe("images", async () => {
  await import("./files-and-facts/images.cases.ts");
});
describe("container-facts", async () => {
  await import("./files-and-facts/container-facts.cases.ts");
});
describe("format-recognition", async () => {
  await import("./files-and-facts/format-recognition.cases.ts");
});
describe("longtail-more", async () => {
  await import("./files-and-facts/longtail-more.cases.ts");
});
describe("provenance-tail", async () => {
  await import("./files-and-facts/provenance-tail.cases.ts");
});
describe("facts-from-evidence", async () => {
  await import("./files-and-facts/facts-from-evidence.cases.ts");
});
describe("longtail", async () => {
  await import("./files-and-facts/longtail.cases.ts");
});
describe("made-by-others", async () => {
  await import("./files-and-facts/made-by-others.cases.ts");
});
