// Issue 14 item 4: once a resource's runner work has ended, its alarm moves to what is actually due next (the
// record's expiry), not to the watchdog or queue-pickup wake set at dispatch. Such a wake would make workerd
// re-create the evicted object (SQLite connection, native memory) only to find nothing to do; under a soak
// of many distinct URLs those wakes keep many more objects resident at once (docs/reliability.md).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ResourceRecord } from "../../../shared/schemas/record.ts";
import { normalizeUrl } from "../../../worker/record/target-url.ts";
import { RecordStore } from "../../../worker/object/record-store.ts";
import { isComplete } from "../../../worker/record/stage-state.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";
import { waitFor } from "../../../testkit/wait-for.ts";

const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;
const objectFor = (url: string) => resources.get(resources.idFromName(normalizeUrl(new URL(url))));
/** Queue-pickup grace (worker/config/config.ts QUEUE_PICKUP_GRACE_MS default): the wake set when work is queued. */
const queuePickupGraceMs = 15_000;

/** The alarm, the record's expiry, whether every stage has ended, and the dispatch rows left. */
function objectState(url: string) {
  return runInDurableObject(objectFor(url), async (_instance, state) => {
    const row = state.storage.sql.exec<{ record: string }>(`SELECT record FROM resource`).toArray()[0];
    const record = row ? ResourceRecord.parse(JSON.parse(row.record)) : undefined;
    return {
      alarm: await state.storage.getAlarm(),
      expiry: new RecordStore(state.storage.sql).nextExpiry(),
      complete: record ? isComplete(record) : false,
      runnerStages: record ? Object.values(record.stages).filter((s) => s?.engine === "runner").length : 0,
      dispatchRows: state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM dispatch`).toArray()[0]!.n,
    };
  });
}

async function untilComplete(url: string, timeoutMs = 12_000) {
  return waitFor(async () => {
    const state = await objectState(url);
    return state.complete && state;
  }, { timeoutMs, intervalMs: 100, what: "every stage ended" });
}

describe("the alarm after runner work ends", () => {
  it("queued work (profile=fast): once the runner's results are in, the alarm is the record's expiry, not the pickup deadline", async () => {
    const url = media("video.mp4");
    const started = Date.now();
    const first = await inspect(url, "profile=fast");
    expect(first.status).toBe(200);
    const done = await untilComplete(url);
    expect(done.complete).toBe(true);
    expect(done.runnerStages).toBeGreaterThan(0); // work did go through the queue to the runner
    expect(Date.now() - started).toBeLessThan(queuePickupGraceMs); // the old wake would still be pending now
    expect(done.dispatchRows).toBe(0);
    expect(done.alarm).toBe(done.expiry);
    expect(done.alarm!).toBeGreaterThan(Date.now() + 60 * 60_000);
  });

  it("a direct call (profile=full): when it has answered, the watchdog's 2 s wake is gone", async () => {
    const url = media("video.webm");
    const reply = await inspect(url, "profile=full");
    expect(reply.status).toBe(200);
    const done = await untilComplete(url);
    expect(done.complete).toBe(true);
    expect(done.runnerStages).toBeGreaterThan(0);
    expect(done.dispatchRows).toBe(0);
    expect(done.alarm).toBe(done.expiry);
  });
});
