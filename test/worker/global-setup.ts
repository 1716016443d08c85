import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startFakeDoh } from "../../testkit/fake-doh.ts";
import { startRunnerProcess } from "../../testkit/runner-process.ts";
import { startRunnerGate } from "../../testkit/runner-gate.ts";
import { startWebhookReceiver } from "../../testkit/webhook-receiver.ts";
import { startFakeOembed } from "../../testkit/fake-oembed.ts";
import { startConnectionTrap, startGarbageServer, startLoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { workerFixtureFactKeys } from "../../testkit/worker/fixture-facts.ts";
import { makeFixturesAside } from "../../testkit/worker/make-fixtures.ts";

declare module "vitest" {
  export interface ProvidedContext {
    originUrl: string;
    garbageUrl: string;
    dohUrl: string;
    ssrfAllowlist: string;
    trapPort: number;
    runnerUrl: string;
    runnerToken: string;
    webhookUrl: string;
    webhookSecret: string;
    oembedUrl: string;
  }
}


/** Node side of the worker tests: real media files, a loopback origin with faults, a fake DoH resolver, a trap. */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..");
  // The offline docs assets (public/vendor), which `npm start` makes before wrangler: made here for the Worker tests.
  execFileSync(process.execPath, [join(root, "..", "scripts", "copy-docs-assets.mjs")]);
  const trap = await startConnectionTrap("127.0.0.1");
  const extras: Record<string, () => unknown> = { trap: () => ({ connections: trap.connections() }) };
  // Filled when the fixtures are made (the origin looks a name up at each request); no Worker test runs before.
  const serveDirs: string[] = [];
  const started = Date.now();
  const aside = makeFixturesAside(root);
  const fixtures = aside.made.then((made) => {
    console.log(`worker fixtures made aside in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    serveDirs.push(...made.serveDirs);
    return made.facts;
  });
  fixtures.catch(() => {}); // a failure is answered to each Worker test file by the fixturesReady extra
  // A Worker test file waiting for them: they are no longer made only in idle time.
  const waitedFor = <T>(value: Promise<T>) => {
    aside.hurry();
    return value;
  };
  extras.fixturesReady = () => waitedFor(fixtures.then(() => true));
  for (const key of workerFixtureFactKeys) extras[key] = () => waitedFor(fixtures.then((made) => made[key]));
  const origin = await startLoopbackOrigin(serveDirs, "127.0.0.1", extras);
  const garbage = await startGarbageServer();
  const doh = await startFakeDoh({
    "private.test": { A: ["10.0.0.5"] },
    "meta.test": { A: ["169.254.169.254"] },
    "trap.test": { A: ["127.0.0.1"] },
    "v6private.test": { AAAA: ["fd00::1"] },
    "mapped.test": { AAAA: ["::ffff:127.0.0.1"] },
    "mixed.test": { A: ["8.8.8.8", "192.168.1.1"] },
    "cgnat.test": { A: ["100.64.0.1"] },
    "linklocal6.test": { AAAA: ["fe80::1"] },
    "nat64.test": { AAAA: ["64:ff9b::a00:1"] },
    "nx.test": {},
    // Issue 15 finding 1: names only the DoH fake knows; the system resolver cannot answer them.
    "pinned.test": { A: ["127.0.0.1"] },
    "hook.test": { A: ["127.0.0.1"] },
    "rebind.test": { A: ["8.8.8.8"] },
  });
  const receiver = await startWebhookReceiver();
  const oembed = await startFakeOembed();
  const runnerToken = "test-runner-token-0123456789abcdef";
  const runner = await startRunnerProcess(join(root, ".."), {
    RUNNER_TOKEN: runnerToken,
    SSRF_ALLOWLIST: `127.0.0.1:${origin.port}`,
  });
  const gate = await startRunnerGate(runner.url);
  extras.webhooks = () => receiver.received;
  extras.runnerCalls = () => gate.calls();
  extras.runnerRequestIds = () => gate.requestIds();
  extras.runnerClients = () => gate.clients();
  extras.runnerBudgets = () => gate.budgets();
  extras.oembed = () => oembed.requests;
  project.provide("runnerUrl", gate.url);
  project.provide("runnerToken", runnerToken);
  project.provide("webhookUrl", receiver.url);
  project.provide("webhookSecret", "whsec_" + Buffer.from("test-webhook-secret-32-bytes-long!").toString("base64"));
  project.provide("oembedUrl", oembed.url);
  project.provide("originUrl", origin.url);
  project.provide("garbageUrl", garbage.url);
  project.provide("dohUrl", doh.url);
  project.provide(
    "ssrfAllowlist",
    [origin.port, garbage.port, receiver.port, oembed.port].map((p) => `127.0.0.1:${p}`).join(","),
  );
  project.provide("trapPort", trap.port);
  return async () => {
    // Bounded, so a server that cannot close never keeps the test run alive.
    const closing = Promise.all([origin.close(), garbage.close(), doh.close(), trap.close(), receiver.close(), gate.close(), oembed.close()]);
    await Promise.race([closing, new Promise((r) => setTimeout(r, 5_000).unref())]);
    await runner.stop();
  };
}
