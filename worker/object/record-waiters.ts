/**
 * `full` callers waiting for a record to change: woken by every change (no polling), each gives up at its own
 * deadline.
 */
export class RecordWaiters {
  private readonly waiting = new Set<() => void>();

  /** Resolves once `done()` holds (checked now and at every wake) or after `timeoutMs`. */
  waitFor(timeoutMs: number, done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (done()) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        this.waiting.delete(check);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.waiting.add(check);
      check();
    });
  }

  /** The record changed: every waiter checks again. */
  wake(): void {
    for (const check of [...this.waiting]) check();
  }
}
