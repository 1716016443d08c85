// A flood of `maxAge=0` requests for one URL: one revalidation shared by the callers asking while it runs, a
// conditional request where the record has validators, at most one full re-probe a second where it has none,
// and no runner job for `profile=fast` (which shows none of the runner's results). Prints origin requests per
// request (the figure of the closing note).
import { waitFor } from "../../testkit/wait-for.ts";
import { recordOlderThan, runnerWorkSettled } from "../../testkit/worker/object-state.ts";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { media, origin, originStats } from "../../testkit/worker/helpers.ts";
import { runnerClients, sleep } from "../../testkit/worker/jobs.ts";

const callers = 30;

async function get(url: string, query: string) {
  const params = new URLSearchParams(query);
  params.set("url", url);
  const response = await SELF.fetch(`http://service/api/v1/inspect?${params}`);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text), headers: response.headers };
}

/** Origin requests whose path contains `marker`. */
async function originRequests(marker: string) {
  return (await originStats()).requests.filter((r) => r.path.includes(marker));
}

/** Callers start this far apart, so most arrive after an earlier caller's revalidation has ended (within 0.6 s). */
const spacingMs = 20;

/** `callers` overlapping `maxAge=0 profile=fast` GETs of `url`; the origin requests they caused. */
async function flood(url: string, marker: string) {
  const before = (await originRequests(marker)).length;
  const answers = await Promise.all(Array.from({ length: callers }, (_, i) => sleep(i * spacingMs).then(() => get(url, "profile=fast&maxAge=0"))));
  for (const a of answers) expect(a.status, a.text).toBe(200);
  const caused = (await originRequests(marker)).slice(before);
  return { answers, caused };
}

describe(`${callers} overlapping maxAge=0 fast requests for one URL`, { timeout: 60_000 }, () => {
  it("with validators: conditional requests only, at most one a second", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/play/validated/${id}/png-opaque.png`;
    expect((await get(url, "profile=standard")).status).toBe(200);
    // Ages are whole seconds: past the first one, the record no longer satisfies maxAge=0.
    await waitFor(() => recordOlderThan(url, 0), { intervalMs: 50, what: "the record to outgrow maxAge=0" });
    const { answers, caused } = await flood(url, `/play/validated/${id}/`);
    console.log(`maxAge=0 flood, validators: ${caused.length} origin requests for ${callers} requests (${(caused.length / callers).toFixed(3)} per request)`);
    expect(caused.length).toBeGreaterThanOrEqual(1);
    // One revalidation per second the flood spans (it may straddle a second boundary).
    expect(caused.length).toBeLessThanOrEqual(2);
    for (const r of caused) expect(r.headers["if-none-match"]).toBe(`"${id}-v1"`);
    expect(answers.some((a) => /fwd=stale; fwd-status=304/.test(a.headers.get("cache-status") ?? ""))).toBe(true);
  });

  it("a changed video: re-probed once, and no runner job for the fast callers", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const url = `${origin}/play/validated/${id}/video.mp4`;
    expect((await get(url, "profile=full")).status).toBe(200);
    // Runner calls the full inspection made, counted once its runner work has settled.
    await waitFor(() => runnerWorkSettled(url), { what: "the full inspection's runner work settled" });
    const jobsBefore = (await runnerClients(url)).length;
    expect(jobsBefore).toBeGreaterThanOrEqual(1);
    await fetch(`${origin}/play/bump/${id}`);
    const { answers, caused } = await flood(url, `/play/validated/${id}/`);
    console.log(`maxAge=0 flood, changed file: ${caused.length} origin requests for ${callers} requests (${(caused.length / callers).toFixed(3)} per request)`);
    // One conditional request (206: changed), then one probe of the new file (a few Range reads), not one per caller.
    expect(caused.filter((r) => r.headers["if-none-match"] !== undefined).length).toBeLessThanOrEqual(2);
    expect(caused.length).toBeLessThanOrEqual(12);
    // The new file's facts, for every caller.
    for (const a of answers) expect(a.body.data.identity.mime).toBe("video/mp4");
    // The new record's runner stages wait for a caller who asks for them.
    await sleep(2_000);
    expect((await runnerClients(url)).length).toBe(jobsBefore);
    const full = await get(url, "profile=full");
    expect(full.body.processing.status).toBe("complete");
  });

  it("without validators: at most one full re-probe a second, no runner job", async () => {
    const url = media("video.mp4");
    const marker = new URL(url).search.slice(1);
    expect((await get(url, "profile=full")).status).toBe(200);
    const probe = (await originRequests(marker)).length;
    await waitFor(() => runnerWorkSettled(url), { what: "the full inspection's runner work settled" });
    const jobsBefore = (await runnerClients(url)).length;
    const { answers, caused } = await flood(url, marker);
    console.log(`maxAge=0 flood, no validators: ${caused.length} origin requests for ${callers} requests (${(caused.length / callers).toFixed(3)} per request); the first full inspection made ${probe}`);
    expect(caused.length).toBeLessThanOrEqual(2 * probe);
    await sleep(2_000);
    expect((await runnerClients(url)).length).toBe(jobsBefore);
  });
});
