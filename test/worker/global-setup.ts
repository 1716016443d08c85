import type { TestProject } from "vitest/node";
import { createServer } from "node:http";
export default async function setup(project: TestProject) {
  const s = createServer((q, r) => { r.end("hi"); });
  await new Promise<void>((res) => s.listen(0, "127.0.0.1", () => res()));
  const port = (s.address() as any).port;
  project.provide("originUrl", `http://127.0.0.1:${port}`);
  project.provide("dohUrl", `http://127.0.0.1:${port}/dns-query`);
  project.provide("ssrfAllowlist", `127.0.0.1:${port}`);
  return async () => { s.close(); };
}
