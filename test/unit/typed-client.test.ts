// The typed client (client/, hono/client over the Worker's AppType) covers every route: `tsc` compiles a script
// calling each one (inspect POST and GET, batch, job, thumbnails, storyboards, /oembed, /v?url=, /health,
// /problems) with typed answers, and refuses misuses of them, so a route left out of AppType fails here.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const tsc = join(root, "node_modules", ".bin", "tsc");

const calls = `import { createClient, type OembedDocument } from "../index.ts";

const api = createClient("http://127.0.0.1:8787");
const url = "https://cdn.example/clip.mp4";

const posted = await api.api.v1.inspect.$post({ query: { profile: "fast", maxAge: "0" }, json: { url } });
if (posted.status === 200) { const body = await posted.json(); if ("processing" in body) body.processing.completedStages.join(); }
const got = await api.api.v1.inspect.$get({ query: { url, profile: "standard" } });
if (got.status === 202) (await got.json()).job?.id.trim();
const batch = await api.api.v1.inspect.batch.$post({ query: { profile: "fast" }, json: { urls: [url] } }, { headers: { "Idempotency-Key": "k" } });
if (batch.status === 200) (await batch.json()).results.length.toFixed();
const job = await api.api.v1.job[":id"].$get({ param: { id: "j" } });
if (job.status === 200) (await job.json()).job.status.trim();
const thumb = await api.api.v1.thumbnails[":file"].$get({ param: { file: "a.webp" }, header: {} });
thumb.status.toFixed();
const vtt = await api.api.v1.storyboards[":file"].$get({ param: { file: "a.vtt" }, header: {} });
vtt.status.toFixed();
const oembed = await api.oembed.$get({ query: { url, maxwidth: "320" } });
if (oembed.status === 200) { const doc: OembedDocument = await oembed.json(); doc.version.trim(); if (doc.type === "video") doc.html.trim(); }
const share = await api.v.$get({ query: { url } });
(await share.text()).trim();
const shareLink: string = api.v.$url({ query: { url } }).href;
const health = await api.health.$get();
(await health.json()).status satisfies "ok";
const problem = await api.problems[":name"].$get({ param: { name: "rate-limited" } });
problem.status.toFixed();
export { shareLink };
`;

// Each line is one misuse tsc must refuse, naming what is wrong.
const misuse = `import { createClient } from "../index.ts";
const api = createClient("http://127.0.0.1:8787");
await api.oembed.$get({ query: { link: "x" } });
await api.v.$get({ query: {} });
const doc = await (await api.oembed.$get({ query: { url: "x" } })).json();
if (doc.type === "photo") doc.html.trim();
`;

describe("typed client routes", () => {
  it("tsc compiles calls to every route and refuses misuses of /oembed and /v", async () => {
    const dir = mkdtempSync(join(root, "client", "typecheck-"));
    try {
      writeFileSync(join(dir, "calls.ts"), calls);
      writeFileSync(join(dir, "misuse.ts"), misuse);
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../tsconfig.json", include: [".", "../../worker-configuration.d.ts"], exclude: [] }));
      const output = await run(tsc, ["--noEmit", "-p", join(dir, "tsconfig.json")], { cwd: root }).then(() => "", (e: { stdout: string }) => e.stdout);
      const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
      // Nothing in the calls: every route is in AppType with the types used.
      expect(errors.filter((line) => line.includes("calls.ts")), output).toEqual([]);
      // Each misuse line is refused.
      for (const line of [3, 4, 6]) expect(errors.some((e) => e.includes(`misuse.ts(${line},`)), `misuse line ${line}\n${output}`).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
