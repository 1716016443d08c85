import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

interface Logged { path: string; range?: string; bytes: number; headers: Record<string, string>; connection?: number; receivedAt?: number; answeredAt?: number }

/** The service's requests for one URL nonce, in arrival order. */
async function requestsWith(n: string): Promise<Logged[]> {
  const { requests } = (await originStats()) as { requests: Logged[] };
  return requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n && r.headers["user-agent"]?.startsWith("media-inspect/"));
}

async function moovOffset(file: string): Promise<{ moovAt: number; size: number }> {
  const whole = new Uint8Array(await (await fetch(`${origin}/media/${file}`)).arrayBuffer());
  const view = new DataView(whole.buffer);
  let moovAt = -1;
  for (let o = 0, i = 0; o + 8 <= whole.length && i < 64; i++) {
    const size = view.getUint32(o);
    if (String.fromCharCode(...whole.subarray(o + 4, o + 8)) === "moov") moovAt = o;
    if (size < 8) break;
    o += size;
  }
  return { moovAt, size: whole.length };
}

// Issue 22 item 3: a moov-last MP4's moov starts where the mdat ends and runs to the end of the file, so a small
// tail is read whole in one request instead of a window at the moov's header and one at each further trak.
describe("a read plan, not a read chain", () => {
  it("moov-end.m4a (a 6 KB moov after the mdat): the head and a 32 KiB suffix together, the moov in the suffix", async () => {
    const { moovAt, size } = await moovOffset("moov-end.m4a");
    expect(moovAt).toBeGreaterThan(16 * 1024); // past the head
    expect(size - moovAt).toBeGreaterThan(4 * 1024); // more than the old whole-read bound
    expect(size - moovAt).toBeLessThanOrEqual(32 * 1024); // within the suffix read with the head

    const url = media("moov-end.m4a");
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.audio?.duration?.seconds).toBeGreaterThan(0);
    const requests = await requestsWith(new URL(url).searchParams.get("n")!);
    expect(requests.map((r) => r.range)).toEqual(["bytes=0-16383", "bytes=-32768"]);
    // Pipelined: one connection for both.
    expect(new Set(requests.map((r) => r.connection)).size).toBe(1);
  });

  it("big-moov-end.mp4 (a 76 KB moov after the mdat, to the end): the suffix, then the rest of the moov in one request", async () => {
    const { moovAt, size } = await moovOffset("big-moov-end.mp4");
    expect(size - moovAt).toBeGreaterThan(32 * 1024); // more than the suffix holds
    const url = media("big-moov-end.mp4");
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.video?.width).toBeGreaterThan(0);
    const requests = await requestsWith(new URL(url).searchParams.get("n")!);
    // Known offset (the mdat's end) and size (to the end of the file): one read of what the suffix missed.
    expect(requests.map((r) => r.range)).toEqual(["bytes=0-16383", "bytes=-32768", `bytes=${moovAt}-${size - 32 * 1024 - 1}`]);
    expect(new Set(requests.map((r) => r.connection)).size).toBe(1);
  });

  // The suffix does not wait for the head: /slow/<ms>/ holds every answer back, so a suffix request that
  // arrives before the head was answered was sent before any of the head's bytes could have been read.
  it.each([
    ["moov-end.m4a", "bytes=-32768"],
    ["late-tracks.mkv", "bytes=-65536"],
    ["big-picture.flac", "bytes=-1024"],
  ])("%s behind a slow origin: the suffix request arrives while the head is still unanswered", async (file, suffixRange) => {
    const delayMs = 400;
    const n = crypto.randomUUID().slice(0, 8);
    const { status, body } = await inspect(`${origin}/slow/${delayMs}/${file}?n=${n}`, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    const requests = await requestsWith(n);
    const [head, suffix] = requests;
    expect(head?.range).toMatch(/^bytes=0-\d+$/);
    expect(suffix?.range).toBe(suffixRange);
    expect(suffix!.receivedAt! - head!.receivedAt!).toBeLessThan(delayMs / 2);
    expect(suffix!.receivedAt!).toBeLessThan(head!.answeredAt!);
    expect(head!.answeredAt! - head!.receivedAt!).toBeGreaterThanOrEqual(delayMs - 5);
    // One connection (pipelined), and the probe's request cap holds (the suffix is one of the source's requests).
    expect(new Set(requests.map((r) => r.connection)).size).toBe(1);
    expect(requests.length).toBeLessThanOrEqual(1 + 32);
    expect(requests.filter((r) => r.range?.startsWith("bytes=-"))).toHaveLength(1);
  });

  it("an origin without Range: the suffix is given up with the head's connection, never re-sent on another", async () => {
    const n = crypto.randomUUID().slice(0, 8);
    const { status, body } = await inspect(`${origin}/norange/moov-end.m4a?n=${n}`, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    const requests = await requestsWith(n);
    expect(requests.filter((r) => r.range?.startsWith("bytes=-")).length).toBeLessThanOrEqual(1);
    expect(requests.length).toBeLessThanOrEqual(2);
  });
});
