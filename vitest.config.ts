import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./testkit/longest-first-sequencer.ts";

// Three layers (see README "Tests"): pure shared code in Node, the Worker inside workerd,
// and the media runner in Node against real ffmpeg.
//
// Order on 2 cores (where Vitest's default is one file at a time). A group's files share one limit of files at once,
// whatever their project, and the groups run one after the other:
// - group 0: the end-to-end and browser files, which mostly wait for a service to start and for Chromium, two at once
//   (each service with its own ports and local data, testkit/start-service.ts);
// - group 1: the runner files that bound their own time, two at once among themselves (they mostly wait on deadlines,
//   budgets and engines: one at a time they kept under half of one core busy), never beside the heavier groups;
// - group 2: the Worker's files, each in a workerd of its own, the other runner files, the unit files and the
//   reliability suites that count answers, three at once: two at once left about a quarter of the two cores idle (the
//   Worker's files wait on runner jobs, deadlines and retries). Alone, this group took 273-279 s two at once and
//   214-239 s three at once, with no more CPU time (about 415 CPU-s either way);
// - group 3: the reliability suites that measure latency, alone.
const waiting = { sequence: { groupOrder: 0 }, maxWorkers: 2 };
const timedTwoAtOnce = { sequence: { groupOrder: 1 }, maxWorkers: 2 };
const threeAtOnce = { sequence: { groupOrder: 2 }, maxWorkers: 3 };
/**
 * Node files of one project share a process and its loaded modules (Vitest's isolate: false): the runner's and the
 * unit files were a third of their CPU time in starting a process and importing the same modules again per file
 * (runner alone: 127 -> 89 CPU-s; unit: 82 -> 58). They restore what they change (environment variables, timers).
 */
const sharedModules = { isolate: false };
/** Runner files whose assertions bound elapsed or engine time: a heavier file running beside them would skew those. */
const runnerTimed = ["decoder-limits", "fair-scheduler", "hostile-work", "origin-limiter", "shutdown", "job-budget", "manifest-previews",
  "media-image", "frame-decoder", "head-handoff"].map((name) => `test/runner/${name}.test.ts`);
/** Reliability suites whose assertions bound latency (a good file's p50, a runner slot's wait). */
const reliabilityTimed = ["faults", "starvation"].map((name) => `test/reliability/${name}.test.ts`);
export default defineConfig({
  test: {
    // Within a group, the longest files first (test/file-seconds.json), whatever their project.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", ...threeAtOnce, ...sharedModules, testTimeout: 30_000 },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            main: "./worker/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ENVIRONMENT: "test",
                ORIGIN_URL: inject("originUrl"),
                DOH_RESOLVER_URL: inject("dohUrl"),
                SSRF_ALLOWLIST: inject("ssrfAllowlist"),
                GARBAGE_URL: inject("garbageUrl"),
                TRAP_PORT: String(inject("trapPort")),
                // Short deadline so the timeout test is quick; the shipped default is 10 s.
                FETCH_TIMEOUT_MS: "2000",
                ERROR_TTL_SECONDS: "0",
                RUNNER_URL: inject("runnerUrl"),
                RUNNER_TOKEN: inject("runnerToken"),
                RUNNER_RETRY_BASE_SECONDS: "1",
                RUNNER_MAX_ATTEMPTS: "3",
                WEBHOOK_SECRET: inject("webhookSecret"),
                WEBHOOK_RETRY_BASE_MS: "200",
                WEBHOOK_URL_BASE: inject("webhookUrl"),
                OEMBED_BASE_URL: inject("oembedUrl"),
                // C2PA's own test root bundle as the trust list (test/fixtures/c2pa/README.md).
                C2PA_TRUST_ANCHORS: readFileSync("test/fixtures/c2pa/test-trust-anchors.pem", "utf8"),
                // Long enough for any real job here, short enough to test the bound with a slow runner.
                FULL_WAIT_TIMEOUT_MS: "12000",
                // Every test shares one client; the limiter has its own tests (test/worker/edge-guards/security-rate-limit.cases.ts).
                INSPECT_RATE_LIMIT: "0",
                WEBHOOK_HOST_RATE_LIMIT: "0",
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: ["zod", "@modelcontextprotocol/sdk/server/mcp.js", "@modelcontextprotocol/sdk/types.js", "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js", "@modelcontextprotocol/sdk/validation/cfworker", "music-metadata", "strtok3", "image-size", "file-type", "ipaddr.js", "mpd-parser", "m3u8-parser", "iso-639-2", "exifr", "blurhash", "@cloudflare/containers"],
              },
            },
          },
          ...threeAtOnce,
          // Each file in a workerd of its own (about 5 CPU-s before its first test, so small files run as one: see
          // test/worker/edge-guards.test.ts): one shared workerd (isolate: false) saved import time but let module
          // state (configuration, limiters, counters) carry from file to file, and seven tests failed on it in CI.
          // The Worker's dependencies are bundled once (Vite's dependency optimizer) instead of served to each workerd
          // module by module; hono stays out, since its subpath imports would then load a second copy of it.
          // Many tests drive the runner and real ffmpeg; on 2 busy cores 5 s is too tight for a single case.
          testTimeout: 30_000,
          globalSetup: ["./test/worker/global-setup.ts"],
          // The set-up makes the generated media while earlier groups run; each file waits here until it is made.
          setupFiles: ["./test/worker/fixtures-ready.ts"],
        },
      },
      {
        // The runner files that bound their own time (engine budgets, deadlines, shutdown grace) run among themselves;
        // the others run three at once beside the Worker's and the unit files.
        test: {
          name: "runner-timed",
          include: runnerTimed,
          environment: "node",
          globalSetup: ["./test/runner/global-setup.ts"],
          ...timedTwoAtOnce,
          ...sharedModules,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "runner",
          include: ["test/runner/**/*.test.ts"],
          exclude: runnerTimed,
          environment: "node",
          globalSetup: ["./test/runner/global-setup.ts"],
          ...threeAtOnce,
          ...sharedModules,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          ...waiting,
          testTimeout: 120_000,
          hookTimeout: 150_000,
        },
      },
      {
        // Reliability suites against the real `npm start` (scripts/start.mjs) on loopback, each starting its own
        // service: short runs of bench/faults.ts and bench/starvation.ts, which measure latency, alone at the end.
        test: {
          name: "reliability",
          include: reliabilityTimed,
          environment: "node",
          fileParallelism: false,
          sequence: { groupOrder: 3 },
          testTimeout: 300_000,
          hookTimeout: 150_000,
        },
      },
      {
        // Short runs of bench/fuzz.ts and bench/load.ts: they count answers (no 500, no hang within 60 s, no error,
        // one probe per URL) and bound no latency, so they run beside the Worker's, runner and unit files.
        test: {
          name: "reliability-counts",
          include: ["test/reliability/**/*.test.ts"],
          exclude: reliabilityTimed,
          environment: "node",
          ...threeAtOnce,
          testTimeout: 300_000,
          hookTimeout: 150_000,
        },
      },
      {
        // Real Chromium (Debian's, driven by playwright-core) against the real `npm start`; see test/browser/.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/browser/global-setup.ts"],
          ...waiting,
          testTimeout: 120_000,
          hookTimeout: 150_000,
        },
      },
    ],
  },
});
