/**
 * Issue 20 item 2: one inspection, Worker and media runner together, makes at most inspectionOriginRequestBudget
 * origin requests. The origin cloaks (testkit/cloaked-hls.ts): the Worker reads a valid one-segment VOD
 * playlist and plans the previews from it; the runner, reading the same URL, gets a master of many variants.
 * Every request carries the test's nonce, so the origin's own log counts the whole inspection.
 */
import { describe, expect, it } from "vitest";
import { inspectionOriginRequestBudget } from "../../../shared/limits.ts";
import { inspect, origin, originStats } from "../../../testkit/worker/helpers.ts";

function cloaked(variants: number, hops: number): { url: string; nonce: string } {
  const nonce = crypto.randomUUID().slice(0, 8);
  return { url: `${origin}/cloaked-hls/${variants}/${hops}/index.m3u8?n=${nonce}`, nonce };
}

async function requestsWith(nonce: string): Promise<string[]> {
  return (await originStats()).requests.map((r) => r.path).filter((path) => new URL(path, origin).searchParams.get("n") === nonce);
}

function previewError(body: { debug: { stageErrors: { stage: string; reason: string }[] } }): string | undefined {
  return body.debug.stageErrors.find((e) => e.stage === "preview:thumbnail")?.reason;
}

describe("one inspection's origin budget, edge and runner together", () => {
  it("60 variants behind 2 redirects each (181 requests) stop at the budget: the previews fail with its reason", async () => {
    const { url, nonce } = cloaked(60, 2);
    const { status, body } = await inspect(url, "profile=full&debug=true");
    expect(status).toBe(200);
    expect(body.data.metadata.streaming.protocol).toBe("hls");
    expect(body.processing.failedStages).toContain("preview:thumbnail");
    expect(previewError(body)).toMatch(/PAYLOAD_TOO_LARGE: the inspection's origin request budget is spent \(inspectionOriginRequestBudget/);
    const seen = await requestsWith(nonce);
    // The edge's probe took one; the runner was given the rest, not a budget of its own.
    expect(seen.length).toBe(inspectionOriginRequestBudget);
    expect(body.data.diagnostics.requests + body.data.diagnostics.redirects).toBe(seen.length);
  });

  it("a 2,000-variant master: at most the budget in requests for the whole inspection, the previews fail naming the bound", async () => {
    const { url, nonce } = cloaked(2000, 0);
    const { status, body } = await inspect(url, "profile=full&debug=true");
    expect(status).toBe(200);
    expect(body.processing.failedStages).toContain("preview:thumbnail");
    // The runner's manifest session names at most as many URLs as the budget could ever fetch.
    expect(previewError(body)).toContain(`more than ${inspectionOriginRequestBudget} URLs`);
    const seen = await requestsWith(nonce);
    expect(seen.length).toBeLessThanOrEqual(inspectionOriginRequestBudget);
    // The edge's probe and the runner's read of the entry playlist: no variant was fetched.
    expect(seen.length).toBe(2);
  });

  it("the same URL without cloaking is a normal one-segment stream whose previews succeed inside the budget", async () => {
    const { url, nonce } = cloaked(0, 0);
    const { status, body } = await inspect(url, "profile=full&debug=true");
    expect(status).toBe(200);
    expect(body.processing.failedStages).toBeUndefined();
    const seen = await requestsWith(nonce);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThan(inspectionOriginRequestBudget / 10);
  });
});
