import { describe } from "vitest";

/**
 * The edge's guards: request validation, methods, depth and size bounds, leaks, rebinding, rate limits.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in edge-guards/ and its hooks inside its own describe block.
 */
describe("security-leaks", async () => {
  await import("./edge-guards/security-leaks.cases.ts");
});
describe("security-depth", async () => {
  await import("./edge-guards/security-depth.cases.ts");
});
describe("security-methods", async () => {
  await import("./edge-guards/security-methods.cases.ts");
});
describe("security-rebinding", async () => {
  await import("./edge-guards/security-rebinding.cases.ts");
});
describe("security-image-bomb", async () => {
  await import("./edge-guards/security-image-bomb.cases.ts");
});
describe("security-rate-limit", async () => {
  await import("./edge-guards/security-rate-limit.cases.ts");
});
describe("validation", async () => {
  await import("./edge-guards/validation.cases.ts");
});
describe("problem-details", async () => {
  await import("./edge-guards/problem-details.cases.ts");
});
describe("api-docs", async () => {
  await import("./edge-guards/api-docs.cases.ts");
});
describe("byte-source-limits", async () => {
  await import("./edge-guards/byte-source-limits.cases.ts");
});
describe("mp4-walk-hostile", async () => {
  await import("./edge-guards/mp4-walk-hostile.cases.ts");
});
describe("tiff-ifd", async () => {
  await import("./edge-guards/tiff-ifd.cases.ts");
});
describe("keep-alive", async () => {
  await import("./edge-guards/keep-alive.cases.ts");
});
describe("ssrf", async () => {
  await import("./edge-guards/ssrf.cases.ts");
});
describe("security-parsing", async () => {
  await import("./edge-guards/security-parsing.cases.ts");
});
