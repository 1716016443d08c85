/** Builds a runner app for a test (app.inject, no listening socket) and reads results back. */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { buildApp, type RunnerApp } from "../../media-runner/src/app.ts";
import { loadConfig, type RunnerConfig } from "../../media-runner/src/config.ts";
import type { Resolver } from "../../media-runner/src/fetch/resolver.ts";
import { findBinaries } from "../../media-runner/src/media/binaries.ts";
import type { RunnerRequestInput } from "../../shared/shapes/runner.ts";
import { afterAll, beforeAll, inject } from "vitest";
import { startLoopbackOrigin, type LoopbackOrigin } from "../loopback-origin.ts";

export const testToken = "test-token-0123456789abcdef";

/** sharp from the runner's own dependencies (the root package does not depend on it). */
export const sharp = createRequire(new URL("../../media-runner/package.json", import.meta.url))("sharp") as typeof import("sharp");

export function testConfig(env: Record<string, string> = {}): RunnerConfig {
  return loadConfig({ RUNNER_TOKEN: testToken, PATH: process.env.PATH, ...env });
}

export async function testApp(env: Record<string, string>, resolve?: Resolver): Promise<RunnerApp> {
  const config = testConfig(env);
  const binaries = findBinaries({ pathVariable: process.env.PATH ?? "" });
  return buildApp({ config, binaries, logger: false, ...(resolve ? { resolve } : {}) });
}

/** The fixture origin and a runner app allowed to fetch from it, for one test file; `close` stops both. */
export async function startAppWithOrigin(): Promise<{ origin: LoopbackOrigin; app: RunnerApp; close(): Promise<void> }> {
  const origin = await startLoopbackOrigin([inject("runnerFixturesDir")]);
  const app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` });
  return {
    origin,
    app,
    async close() {
      await app.close();
      await origin.close();
    },
  };
}

export function processRequest(app: RunnerApp, body: RunnerRequestInput, token: string | null = testToken) {
  return app.inject({
    method: "POST",
    url: "/v1/process",
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    payload: body,
  });
}

/** ffprobe run directly on the local file: the numbers the runner's answers are checked against. */
export async function ffprobeFile(path: string): Promise<{ streams: Record<string, unknown>[]; format: Record<string, string> }> {
  const { stdout } = await promisify(execFile)("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path]);
  return JSON.parse(stdout) as { streams: Record<string, unknown>[]; format: Record<string, string> };
}

/** Decodes a thumbnail back: its real size and mean brightness (0-255). */
export async function decodeThumbnail(base64: string) {
  const image = sharp(Buffer.from(base64, "base64"));
  const meta = await image.metadata();
  const stats = await image.stats();
  const rgb = stats.channels.slice(0, 3);
  const brightness = rgb.reduce((sum, channel) => sum + channel.mean, 0) / rgb.length;
  return { format: meta.format, width: meta.width, height: meta.height, brightness };
}

/**
 * A runner app allowed to read one loopback origin that serves the folder `makeFolder` returns, started before the
 * calling file's tests and closed after them. `fileUrl(name)` is a file of that folder on the origin.
 */
export function runnerOverFolder(makeFolder: () => string, hookTimeoutMs = 60_000) {
  const state: { app?: RunnerApp; origin?: LoopbackOrigin } = {};
  beforeAll(async () => {
    state.origin = await startLoopbackOrigin([makeFolder()]);
    state.app = await testApp({ SSRF_ALLOWLIST: `127.0.0.1:${state.origin.port}` });
  }, hookTimeoutMs);
  afterAll(async () => {
    await state.app?.close();
    await state.origin?.close();
  });
  return {
    app: (): RunnerApp => state.app!,
    fileUrl: (name: string): string => `${state.origin!.url}/files/${name}`,
  };
}
