import { describe, expect, it } from "vitest";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";

// Issue 22 item 5: a TIFF's first IFD may sit after its strips (ffmpeg writes it there), past the 16 KiB head.
// Both fixtures (test/fixtures/images/generate-tiff.mjs) are 200x200 grayscale with the IFD at about 40 KB.
describe("fast on a TIFF whose IFD is at the end", () => {
  it.each(["tiff-ifd-end.tif", "bigtiff-ifd-end.tif"])("%s: dimensions from one bounded read at the IFD", async (file) => {
    const url = media(file);
    const { status, body } = await inspect(url, "profile=fast");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.image, JSON.stringify(body.data)).toMatchObject({ width: 200, height: 200, colorSpace: "gray", hasAlpha: false });
    const n = new URL(url).searchParams.get("n");
    const requests = (await originStats()).requests.filter((r) => new URL(r.path, origin).searchParams.get("n") === n && r.headers["user-agent"]?.startsWith("media-inspect/"));
    // The head, then the IFD: never the strips.
    expect(requests.length).toBeLessThanOrEqual(2);
    expect(requests.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThan(24 * 1024);
  });
});
