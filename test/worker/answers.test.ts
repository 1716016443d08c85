import { describe } from "vitest";

/**
 * Answers and their caching: profiles, projections, provider and page answers, oEmbed, MCP, request ids.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in answers/ and its hooks inside its own describe block.
 */
describe("embed-profile", async () => {
  await import("./answers/embed-profile.cases.ts");
});
describe("answer-caching", async () => {
  await import("./answers/answer-caching.cases.ts");
});
describe("cached-answer-guards", async () => {
  await import("./answers/cached-answer-guards.cases.ts");
});
describe("edge-error-cache", async () => {
  await import("./answers/edge-error-cache.cases.ts");
});
describe("inspect-by-query", async () => {
  await import("./answers/inspect-by-query.cases.ts");
});
describe("oembed-endpoint", async () => {
  await import("./answers/oembed-endpoint.cases.ts");
});
describe("oembed-discovery", async () => {
  await import("./answers/oembed-discovery.cases.ts");
});
describe("providers", async () => {
  await import("./answers/providers.cases.ts");
});
describe("pages", async () => {
  await import("./answers/pages.cases.ts");
});
describe("mcp-endpoint", async () => {
  await import("./answers/mcp-endpoint.cases.ts");
});
describe("request-id-trace", async () => {
  await import("./answers/request-id-trace.cases.ts");
});
describe("diagnostics-transfer", async () => {
  await import("./answers/diagnostics-transfer.cases.ts");
});
