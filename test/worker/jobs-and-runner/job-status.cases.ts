// Job status tells the truth: `failed` with reasons when every stage the job waits for failed, `completed`
// when they finished and at least one succeeded, progress never moving back (issue 14 item 2).
import { describe, expect, it } from "vitest";
import { jobView } from "../../../worker/jobs/job-status.ts";
import type { JobRow } from "../../../worker/jobs/job-store.ts";
import type { ResourceRecord } from "../../../shared/schemas/record.ts";
import { JobResource } from "../../../shared/schemas/job.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { pollJob } from "../../../testkit/worker/jobs.ts";

const videoStages = ["metadata:video", "preview:thumbnail", "preview:blurhash", "preview:palette"];

describe("every stage fails (a runner that always answers 500)", { timeout: 30_000 }, () => {
  it("the job ends `failed`, with each failed stage and its reason, and progress never moves back", async () => {
    const res = await inspect(media("video.mp4", "runner=fail"));
    expect(res.status).toBe(202);
    const { final, seen } = await pollJob(res.body.job.id, 200, 100);
    expect(JobResource.safeParse(final).success).toBe(true);
    expect(final.job.status).toBe("failed");
    expect(final.job.progress).toBe(100);
    expect(final.job.completedAt).toBeDefined();
    const failures = (final.job as any).failures as { stage: string; error: string }[];
    // The job waits for what was pending when it was made: the container facts were read at the edge, so the previews.
    expect(failures.map((f) => f.stage).sort()).toEqual(videoStages.filter((s) => s !== "metadata:video").sort());
    for (const f of failures) expect(f.error).toEqual(expect.stringMatching(/\S/));
    for (const s of seen.slice(0, -1)) expect(["waiting", "active", "delayed"]).toContain(s.job.status);
    const progress = seen.map((s) => s.job.progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
  });
});

// The status rules on hand-made rows and records (the same function the Durable Object uses).
function row(stages: string[] | null, extra: Partial<JobRow> = {}): JobRow {
  return { id: "j", created_at: 1_000, completed_at: null, webhook_url: null, expires_at: 9e12, caller_url: null, stages: stages && JSON.stringify(stages), progress: 0, ...extra };
}
function record(states: Record<string, "pending" | "done" | "failed">): ResourceRecord {
  const stages: Record<string, unknown> = {};
  for (const [name, state] of Object.entries(states)) {
    stages[name] = { state, attempts: 1, ...(state !== "pending" ? { finishedAt: 5_000 } : {}), ...(state === "failed" ? { error: `E_${name}` } : {}) };
  }
  return { category: "video", stages, updatedAt: 6_000 } as unknown as ResourceRecord;
}
// What the first inspection finishes inline: the core stages and metadata:provenance.
const base = { semantic: "done", mediaFormat: "done", "metadata:provenance": "done" } as const;

describe("jobView rules", () => {
  it("completed when the job's stages finished and one succeeded; the failed ones are listed", () => {
    const view = jobView(row(videoStages), record({ ...base, "metadata:video": "done", "preview:thumbnail": "failed", "preview:blurhash": "failed", "preview:palette": "failed" }));
    expect(view.status).toBe("completed");
    expect(view.failures?.map((f) => f.stage)).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
    expect(view.completedAt).toBe(new Date(5_000).toISOString());
  });

  it("failed when all of the job's stages failed, even though the probe stages were done", () => {
    const view = jobView(row(videoStages), record({ ...base, "metadata:video": "failed", "preview:thumbnail": "failed", "preview:blurhash": "failed", "preview:palette": "failed" }));
    expect(view.status).toBe("failed");
    expect(view.failures).toHaveLength(4);
    expect(view.failures![0]).toEqual({ stage: "metadata:video", error: "E_metadata:video" });
  });

  it("a job with nothing to wait for (webhook on a complete resource) is completed, not failed", () => {
    expect(jobView(row([]), record({ ...base, "metadata:video": "done" })).status).toBe("completed");
  });

  it("rows written before the stage list existed wait for every registered stage", () => {
    const view = jobView(row(null), record({ ...base, "metadata:video": "failed", "preview:thumbnail": "pending" }));
    expect(view.status).toBe("delayed");
    expect(view.progress).toBe(Math.round((4 / 7) * 100));
  });

  it("progress is the share of the job's stages finished and never below the high-water mark", () => {
    const states = { ...base, "metadata:video": "done", "preview:thumbnail": "pending", "preview:blurhash": "pending", "preview:palette": "pending" } as const;
    expect(jobView(row(videoStages), record(states)).progress).toBe(25);
    // A stage went back to pending (retry) after 75 % had been shown: still 75.
    expect(jobView(row(videoStages, { progress: 75 }), record(states)).progress).toBe(75);
  });

  it("the resource gone: failed with a reason", () => {
    const view = jobView(row(videoStages), undefined);
    expect(view.status).toBe("failed");
    expect(view.failures?.[0]?.error).toMatch(/RESOURCE_GONE/);
  });
});
