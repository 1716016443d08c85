import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startFakeDoh } from "../support/fake-doh.ts";
import { ensureMediaFixtures } from "../support/media-fixtures.ts";
import { startConnectionTrap, startGarbageServer, startLoopbackOrigin } from "../support/loopback-origin.ts";

declare module "vitest" {
  export interface ProvidedContext {
    originUrl: string;
    garbageUrl: string;
    dohUrl: string;
    ssrfAllowlist: string;
    trapPort: number;
  }
}

/** Node side of the worker tests: real media files, a loopback origin with faults, a fake DoH resolver, a trap. */
export default async function setup(project: TestProject) {
  const root = join(import.meta.dirname, "..");
  const mediaDir = ensureMediaFixtures(join(root, ".fixtures", "media"));
  const trap = await startConnectionTrap("127.0.0.1");
  const origin = await startLoopbackOrigin([mediaDir, join(root, "fixtures", "images")], "127.0.0.1", {
    trap: () => ({ connections: trap.connections() }),
  });
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
  });
  project.provide("originUrl", origin.url);
  project.provide("garbageUrl", garbage.url);
  project.provide("dohUrl", doh.url);
  project.provide("ssrfAllowlist", `127.0.0.1:${origin.port},127.0.0.1:${garbage.port}`);
  project.provide("trapPort", trap.port);
  return async () => {
    await Promise.all([origin.close(), garbage.close(), doh.close(), trap.close()]);
  };
}
