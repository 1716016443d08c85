import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "./helpers.ts";

// Issue 22 item 3: a moov-last MP4's moov starts where the mdat ends and runs to the end of the file, so a small
// tail is read whole in one request instead of a window at the moov's header and one at each further trak.
describe("a read plan, not a read chain", () => {
  it("moov-end.m4a (a 6 KB moov after the mdat): the head, then the whole moov in one request", async () => {
    const whole = new Uint8Array(await (await fetch(`${origin}/media/moov-end.m4a`)).arrayBuffer());
    const view = new DataView(whole.buffer);
    let moovAt = -1;
    for (let o = 0, i = 0; o + 8 <= whole.length && i < 64; i++) {
      const size = view.getUint32(o);
      if (String.fromCharCode(...whole.subarray(o + 4, o + 8)) === "moov") moovAt = o;
      if (size < 8) break;
      o += size;
    }
    expect(moovAt).toBeGreaterThan(16 * 1024); // past the head
    expect(whole.length - moovAt).toBeGreaterThan(4 * 1024); // more than the old whole-read bound

    const url = media("moov-end.m4a");
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.audio?.duration?.seconds).toBeGreaterThan(0);
    const n = new URL(url).searchParams.get("n");
    const requests = (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n && r.headers["user-agent"]?.startsWith("media-inspect/"));
    expect(requests.map((r) => r.range)).toEqual([requests[0]!.range, `bytes=${moovAt}-${whole.length - 1}`]);
  });
});
