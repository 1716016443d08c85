import { describe } from "vitest";

/**
 * The record's life: the edge cache, freshness and revalidation, idempotency keys, read plans, callers' identities, failure reasons.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in records-and-cache/ and its hooks inside its own describe block.
 */
describe("cache", async () => {
  await import("./records-and-cache/cache.cases.ts");
});
describe("freshness", async () => {
  await import("./records-and-cache/freshness.cases.ts");
});
describe("idempotency", async () => {
  await import("./records-and-cache/idempotency.cases.ts");
});
describe("read-plan", async () => {
  await import("./records-and-cache/read-plan.cases.ts");
});
describe("caller-identity", async () => {
  await import("./records-and-cache/caller-identity.cases.ts");
});
describe("failure-reasons", async () => {
  await import("./records-and-cache/failure-reasons.cases.ts");
});
