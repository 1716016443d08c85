/**
 * Runner test set-up: media fixtures made by the real ffmpeg (cached in test/.fixtures/runner) and a
 * loopback Range-capable origin serving them, handed to tests with inject("runnerOriginUrl").
 */
import type { TestProject } from "vitest/node";
import { generateFixtures } from "../../testkit/runner/fixtures.ts";
import { startLoopbackOrigin } from "../../testkit/loopback-origin.ts";

declare module "vitest" {
  export interface ProvidedContext {
    runnerOriginUrl: string;
    runnerFixturesDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await generateFixtures();
  const origin = await startLoopbackOrigin([dir]);
  project.provide("runnerOriginUrl", origin.url);
  project.provide("runnerFixturesDir", dir);
  return async () => {
    await origin.close();
  };
}
