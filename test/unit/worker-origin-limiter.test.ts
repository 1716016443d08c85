// The Worker's per-origin cap (worker/fetch/origin-limiter.ts): never above ORIGIN_MAX_CONCURRENT per origin,
// waiters served in order (a newcomer cannot take a slot being handed over), a waiter gives up with its signal.
import { describe, expect, it } from "vitest";
import { ORIGIN_MAX_CONCURRENT, originLoad, withOriginSlot } from "../../worker/fetch/origin-limiter.ts";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("worker per-origin limiter", () => {
  it("holds at most ORIGIN_MAX_CONCURRENT per origin, hands slots over in order, and frees an aborted waiter", async () => {
    const url = new URL("http://limiter.test/a");
    const other = new URL("http://other.test/a");
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const release: (() => void)[] = [];
    const task = (n: number) => () =>
      new Promise<number>((resolve) => {
        active += 1;
        peak = Math.max(peak, active);
        order.push(n);
        release.push(() => {
          active -= 1;
          resolve(n);
        });
      });
    const never = new AbortController().signal;
    const held = Array.from({ length: ORIGIN_MAX_CONCURRENT }, (_, i) => withOriginSlot(url, never, task(i)));
    const gives = new AbortController();
    const abandoned = withOriginSlot(url, gives.signal, task(100));
    const queued = withOriginSlot(url, never, task(ORIGIN_MAX_CONCURRENT));
    await tick();
    expect(originLoad(url.origin)).toEqual({ active: ORIGIN_MAX_CONCURRENT, queued: 2 });
    // Another origin is not held up.
    await expect(withOriginSlot(other, never, async () => "free")).resolves.toBe("free");

    gives.abort(new Error("deadline"));
    await expect(abandoned).rejects.toThrow("deadline");
    release.shift()!(); // frees a slot: it goes to the queued task, not to the newcomer below
    const newcomer = withOriginSlot(url, never, task(ORIGIN_MAX_CONCURRENT + 1));
    await tick();
    expect(order.at(-1)).toBe(ORIGIN_MAX_CONCURRENT);
    expect(originLoad(url.origin)).toEqual({ active: ORIGIN_MAX_CONCURRENT, queued: 1 });
    while (release.length > 0) {
      release.shift()!();
      await tick();
    }
    await Promise.all([...held, queued, newcomer]);
    expect(order).not.toContain(100);
    expect(peak).toBe(ORIGIN_MAX_CONCURRENT);
    expect(originLoad(url.origin)).toEqual({ active: 0, queued: 0 });
  });
});
