/**
 * Reading what is left of a rejected request body, without keeping it.
 *
 * Answering 413 while the client is still sending leaves unread bytes on the connection. Behind `wrangler dev`
 * (its ProxyWorker forwards each request to the Worker over a pooled loopback connection) that broke the pooled
 * connection: the next request forwarded on it failed, and ProxyWorker parks a failed GET/HEAD in its retry
 * queue until another request arrives (the next plain GET waited 40 s to 5 min), while a failed POST gets its
 * plain-text 503 "Your worker restarted mid-request". Reading the rest first ends the request cleanly. The read
 * is bounded in bytes and time, so a client streaming without end costs at most these, then the stream is
 * cancelled (and the connection closed by the runtime).
 */

/** Most bytes of a rejected body read and dropped before the answer (64 times the body limit). */
export const maxDiscardedBodyBytes = 1024 * 1024;

/** Longest time spent discarding a rejected body (a slow sender does not hold the 413 back longer). */
export const discardDeadlineMs = 1000;

export async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), discardDeadlineMs)));
  try {
    for (let discarded = 0; discarded <= maxDiscardedBodyBytes; ) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "deadline") break;
      if (next.done) return;
      discarded += next.value.byteLength;
    }
    await reader.cancel().catch(() => undefined);
  } catch {
    // The client went away mid-body: nothing left to read.
  } finally {
    clearTimeout(timer);
  }
}
