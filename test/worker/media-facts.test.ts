import { describe } from "vitest";

/**
 * Media facts at the edge: tracks, manifests, segments, the fast profile's head reads, images.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in media-facts/ and its hooks inside its own describe block.
 */
describe("tracks", async () => {
  await import("./media-facts/tracks.cases.ts");
});
describe("manifests", async () => {
  await import("./media-facts/manifests.cases.ts");
});
describe("segment-protection", async () => {
  await import("./media-facts/segment-protection.cases.ts");
});
describe("fast-head", async () => {
  await import("./media-facts/fast-head.cases.ts");
});
describe("image-pipeline", async () => {
  await import("./media-facts/image-pipeline.cases.ts");
});
describe("facts-evidence", async () => {
  await import("./media-facts/facts-evidence.cases.ts");
});
describe("fast-profile", async () => {
  await import("./media-facts/fast-profile.cases.ts");
});
