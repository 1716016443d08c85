// The runner's log lines carry the X-Request-Id of the inspection that started the job (the Worker sends it), so
// one request can be followed from the Worker's log into the runner's; a malformed id is replaced, never logged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type RunnerApp } from "../../media-runner/src/app.ts";
import { findBinaries } from "../../media-runner/src/media/binaries.ts";
import { testConfig, testToken } from "../../testkit/runner/harness.ts";

const lines: Record<string, unknown>[] = [];
let app: RunnerApp;

beforeAll(async () => {
  app = await buildApp({
    config: testConfig({ RUNNER_LOG_LEVEL: "info" }),
    binaries: findBinaries({ pathVariable: process.env.PATH ?? "" }),
    logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
});
afterAll(async () => app?.close());

/** An invalid request (no URL): answered 400 at once, logged like any job request. */
async function call(requestId?: string) {
  const response = await app.inject({
    method: "POST",
    url: "/v1/process",
    headers: { authorization: `Bearer ${testToken}`, ...(requestId !== undefined ? { "x-request-id": requestId } : {}) },
    payload: { category: "video", stages: ["metadata"] },
  });
  expect(response.statusCode).toBe(400);
  return lines.filter((l) => l.msg === "incoming request").at(-1)!;
}

describe("X-Request-Id from the Worker in the runner's log lines", () => {
  it("labels every line of the request with the id it was given", async () => {
    const line = await call("trace-worker-7f3a");
    expect(line.requestId).toBe("trace-worker-7f3a");
    expect(lines.filter((l) => l.requestId === "trace-worker-7f3a").map((l) => l.msg)).toEqual(expect.arrayContaining(["incoming request", "request completed"]));
  });

  it.each([["missing", undefined], ["with spaces and markup", "bad id <x>"], ["too long", "a".repeat(65)]])(
    "an id %s is replaced by a fresh UUID",
    async (_name, id) => {
      const line = await call(id);
      expect(line.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    },
  );
});
