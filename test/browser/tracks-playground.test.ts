import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The playground's tracks panel in Debian's Chromium against the real `npm start`: captions and audio-description
// badges, the languages, the track table, chapter marks on a timeline that seek the player, and the lock with the
// key systems of an encrypted file (whose verdict chips say EME, never native). Screenshots go to
// test/.fixtures/screenshots (tracks-panel.png, tracks-encrypted.png).
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", ".fixtures", "screenshots");

describe("playground tracks panel", () => {
  // The project's service and the track files' origin (test/browser/global-setup.ts).
  const shared = inject("fixturesService");
  const origin = { url: shared.tracksOrigin };
  const service = { base: shared.base };
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    profileDir = mkdtempSync(join(tmpdir(), "tracks-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
      viewport: { width: 1100, height: 1400 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${service.base}/`);
    await page.waitForSelector("#app[data-ready]");
  }, 150_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  async function inspectFast(url: string): Promise<void> {
    await page.selectOption("#profile", "fast");
    await page.fill("#url", url);
    await page.click("button[type=submit]");
    await page.waitForSelector("#app[data-state=done]", { timeout: 120_000 });
  }

  it("subtitles, described audio and chapters: CC and AD badges, languages, the table, chapter marks that seek", async () => {
    await inspectFast(`${origin.url}/media/subs.mp4?tracks=${Date.now()}`);
    await page.waitForSelector("#tracks");
    expect(await page.getAttribute("[data-role=captions]", "class")).toContain("badge-on");
    expect(await page.getAttribute("[data-role=audio-description]", "class")).toContain("badge-on");
    expect(await page.textContent("[data-role=languages]")).toBe("Audio: en, fr · Text: es, de");
    expect(await page.locator("[data-role=track-table] tbody tr[data-kind=text]").count()).toBe(3);
    const marks = page.locator("[data-role=chapters] .chapter-mark");
    expect(await marks.count()).toBe(2);
    await page.locator("#tracks").screenshot({ path: join(shots, "tracks-panel.png") });
    await marks.nth(1).click();
    const time = await page.evaluate(() => document.querySelector<HTMLMediaElement>("#card video")?.currentTime);
    expect(time).toBeCloseTo(1.25, 1);
  });

  it("an encrypted file: the lock names its key systems and the verdict chips say EME or no", async () => {
    await inspectFast(`${origin.url}/media/enc-pssh.mp4?tracks=${Date.now()}`);
    await page.waitForSelector("[data-role=lock]");
    expect(await page.textContent("[data-role=lock]")).toContain("com.widevine.alpha, com.microsoft.playready");
    const verdicts = await page.locator("#verdicts li").evaluateAll((items) => items.map((i) => i.getAttribute("data-verdict")));
    expect(verdicts).not.toContain("native");
    expect(await page.textContent("#verdicts li[data-browser=chrome] .verdict-word")).toBe("EME · com.widevine.alpha");
    await page.locator("#card").screenshot({ path: join(shots, "tracks-encrypted.png") });
  });
});
