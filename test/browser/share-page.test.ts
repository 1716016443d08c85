import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { shareIdOf } from "../../shared/format/share-id.ts";

// Issue 24 item 5: the share page GET /v in Debian's Chromium against the real `npm start` and the README's
// samples server. The page must play the media under its own CSP (no script, no style): the <video> loads its
// metadata from the samples origin and nothing is refused by the policy.
describe("share page /v", () => {
  // The project's `npm start` beside `npm run samples` (test/browser/global-setup.ts): local mode allow-lists the
  // samples origin it is told about (SAMPLES_PORT), as for a user's `npm start`.
  const shared = inject("localService");
  const samples = { url: shared.samplesUrl };
  const service = { base: shared.base };
  let context: BrowserContext;
  let profileDir: string;

  beforeAll(async () => {
    profileDir = mkdtempSync(join(tmpdir(), "share-page-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"],
    });
  }, 150_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it("renders the service's player, which loads the video under the page's CSP, with the unfurl tags", async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    page.on("pageerror", (e) => problems.push(String(e)));
    // Its own URL on the shared service, so the page is made from this test's inspection.
    const media = `${samples.url}/video.mp4?share=${Date.now()}`;
    const response = await page.goto(`${service.base}/v?url=${encodeURIComponent(media)}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    const video = page.locator("video");
    expect(await video.getAttribute("src")).toBe(media);
    expect(await video.getAttribute("controls")).not.toBeNull();
    // HAVE_METADATA or more: the browser fetched the file from the samples origin the CSP names.
    await page.waitForFunction(() => (document.querySelector("video")?.readyState ?? 0) >= 1, undefined, { timeout: 30_000 });
    expect(await page.evaluate(() => [document.querySelector("video")!.videoWidth, document.querySelector("video")!.videoHeight])).toEqual([640, 360]);
    const meta = (selector: string) => page.locator(selector).getAttribute("content");
    expect(await meta('meta[property="og:video"]')).toBe(media);
    expect(await meta('meta[name="twitter:card"]')).toBe("player");
    // The player card names the extension-free /v/{id} form of this page.
    expect(await meta('meta[name="twitter:player"]')).toBe(`${service.base}/v/${shareIdOf(media)}`);
    // The discovery link answers a video document from the same origin.
    const href = await page.locator('link[rel="alternate"][type="application/json+oembed"]').getAttribute("href");
    const doc = await (await fetch(href!)).json();
    expect(doc).toMatchObject({ version: "1.0", type: "video", width: 640, height: 360 });
    expect(problems).toEqual([]);
    await page.close();
  });
});
