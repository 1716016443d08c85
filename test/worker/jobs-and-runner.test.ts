import { describe } from "vitest";

/**
 * Jobs and runner dispatch: job ids, batches, budgets, stage outcomes, alarms, runner choice.
 *
 * Small Worker test files, run as one: each test file gets a workerd of its own, which costs about 5 CPU-seconds
 * before its first test (the runtime and the Worker's modules), more than most of these cases take. Each part keeps
 * its own file in jobs-and-runner/ and its hooks inside its own describe block.
 */
describe("jobs", async () => {
  await import("./jobs-and-runner/jobs.cases.ts");
});
describe("batch", async () => {
  await import("./jobs-and-runner/batch.cases.ts");
});
describe("runner-client-key", async () => {
  await import("./jobs-and-runner/runner-client-key.cases.ts");
});
describe("alarm-rearm", async () => {
  await import("./jobs-and-runner/alarm-rearm.cases.ts");
});
describe("inspection-budget", async () => {
  await import("./jobs-and-runner/inspection-budget.cases.ts");
});
describe("stage-outcomes", async () => {
  await import("./jobs-and-runner/stage-outcomes.cases.ts");
});
describe("runner-pool", async () => {
  await import("./jobs-and-runner/runner-pool.cases.ts");
});
describe("dispatch-head", async () => {
  await import("./jobs-and-runner/dispatch-head.cases.ts");
});
describe("job-status", async () => {
  await import("./jobs-and-runner/job-status.cases.ts");
});
describe("hostile-retries", async () => {
  await import("./jobs-and-runner/hostile-retries.cases.ts");
});
describe("webhooks", async () => {
  await import("./jobs-and-runner/webhooks.cases.ts");
});
describe("resource-state", async () => {
  await import("./jobs-and-runner/resource-state.cases.ts");
});
