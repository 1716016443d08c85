// Issue 25 item 4: POST /api/v1/inspect/batch answers one envelope (or error envelope) per URL, in order.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { media, origin } from "../../../testkit/worker/helpers.ts";

async function batch(body: unknown, query = "") {
  const response = await SELF.fetch(`http://service/api/v1/inspect/batch${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("batch inspection", () => {
  it("a batch of 20 with one bad URL: 19 envelopes and one error envelope, in order", async () => {
    const files = ["png-opaque.png", "jpeg-orientation-6.jpg"];
    const urls = Array.from({ length: 20 }, (_, i) => media(files[i % files.length]!));
    const bad = 13;
    urls[bad] = `${origin}/status/451?n=${crypto.randomUUID().slice(0, 8)}`;
    const r = await batch({ urls }, "profile=fast");
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.results).toHaveLength(20);
    r.body.results.forEach((result: any, i: number) => {
      if (i === bad) {
        expect(result).toMatchObject({ status: "error", error: { code: "BAD_GATEWAY", reason: "geo-blocked", upstreamStatus: 451 } });
        return;
      }
      expect(result.success, JSON.stringify(result).slice(0, 300)).toBe(true);
      // Each slot answers its own URL.
      expect(result.data.identity.url).toBe(urls[i]);
    });
  });

  it("a caller mistake in one URL stays in its slot; the batch's own shape is validated", async () => {
    const r = await batch({ urls: ["ftp://example.com/a", media("png-opaque.png")] }, "profile=fast");
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ status: "error", error: { code: "INVALID_URL" } });
    expect(r.body.results[1].success).toBe(true);
    const tooMany = await batch({ urls: Array.from({ length: 21 }, () => media("png-opaque.png")) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe("INVALID_PAYLOAD");
    expect((await batch({ urls: [] })).status).toBe(400);
  });
});
