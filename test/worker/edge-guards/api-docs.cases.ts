import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("GET /api-docs", () => {
  it("serves Swagger UI that loads only same-origin assets (works without internet)", async () => {
    const response = await SELF.fetch("http://service/api-docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    const assetUrls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assetUrls.length).toBeGreaterThanOrEqual(2);
    for (const url of assetUrls) expect(url.startsWith("/"), `asset ${url} must be same-origin`).toBe(true);
    expect(html).toContain("/openapi.json");
    // Static assets bypass SELF in the pool; fetch them through the ASSETS binding as the runtime would.
    for (const url of assetUrls) {
      const asset = await (env as unknown as { ASSETS: Fetcher }).ASSETS.fetch(`http://service${url}`);
      expect(asset.status, url).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });
});
