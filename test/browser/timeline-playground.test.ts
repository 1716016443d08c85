import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseVtt } from "../../testkit/vtt.ts";

// Issue 24 item 6 (part): the playground shows a storyboard as a hover scrubber under the video and the
// waveform under the audio player, in Debian's Chromium against the real `npm start`. Screenshots go to
// test/.fixtures/screenshots (storyboard-hover.png, waveform.png).
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", ".fixtures", "screenshots");

describe("playground timeline previews", () => {
  // The project's service and sample origin (test/browser/global-setup.ts).
  const shared = inject("fixturesService");
  const origin = { url: shared.playgroundOrigin };
  const service = { base: shared.base };
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    profileDir = mkdtempSync(join(tmpdir(), "timeline-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
      viewport: { width: 1100, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${service.base}/`);
    await page.waitForSelector("#app[data-ready]");
  }, 150_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  /** Inspects `url` with one expand value checked (and only that one). */
  async function inspectWith(url: string, expand: "storyboard" | "waveform"): Promise<any> {
    await page.evaluate(() => document.querySelector<HTMLDetailsElement>(".options")?.setAttribute("open", ""));
    for (const name of ["storyboard", "waveform"]) await page.setChecked(`input[name=expand][value=${name}]`, name === expand);
    await page.fill("#url", url);
    await page.click("button[type=submit]");
    await page.waitForSelector("#app[data-state=done]", { timeout: 120_000 });
    const raw = JSON.parse(await page.textContent("#raw-json") ?? "null");
    return raw?.job ? raw.data : raw;
  }

  it("a video asked with expand=storyboard: hovering the strip shows that moment's tile from the sprite", async () => {
    const envelope = await inspectWith(`${origin.url}/media/video.mp4?timeline=${Date.now()}`, "storyboard");
    const board = envelope.data.preview.storyboard;
    expect(board).toMatchObject({ tiles: 4, columns: 4, tileWidth: 160, tileHeight: 90, interval: 1 });
    expect(envelope.processing.completedStages).toContain("preview:storyboard");
    // The track the service serves: text/vtt, one cue per tile, each pointing into the sprite.
    const track = await page.evaluate(async (path) => {
      const res = await fetch(path);
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    }, board.vtt);
    expect(track.status).toBe(200);
    expect(track.type).toMatch(/^text\/vtt/);
    const cues = parseVtt(track.text);
    expect(cues.map((c) => c.text)).toEqual([0, 1, 2, 3].map((i) => `${board.url}#xywh=${i * 160},0,160,90`));
    const strip = page.locator("[data-role=storyboard]");
    await strip.scrollIntoViewIfNeeded();
    const box = (await strip.boundingBox())!;
    await strip.hover({ position: { x: box.width * 0.6, y: box.height / 2 } });
    await page.waitForSelector(".scrub-tip:not([hidden])");
    // 60 % of 4 s is 2.4 s: the third tile (index 2), drawn from x = 320 of the sprite.
    expect(await page.$eval(".scrub-tip", (el) => (el as HTMLElement).dataset.index)).toBe("2");
    expect(await page.$eval(".scrub-tile", (el) => (el as HTMLElement).style.backgroundPosition)).toBe("-320px 0px");
    const sprite = await page.evaluate(async (path) => {
      const img = new Image();
      img.src = path;
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    }, board.url);
    expect(sprite).toEqual([4 * 160, 90]);
    await page.locator("#player").screenshot({ path: join(shots, "storyboard-hover.png") });
    await page.screenshot({ path: join(shots, "storyboard-page.png"), fullPage: true });
  }, 180_000);

  it("audio asked with expand=waveform: the peaks drawn under the player, with the loudness", async () => {
    const envelope = await inspectWith(`${origin.url}/media/audio.flac?timeline=${Date.now()}`, "waveform");
    const waveform = envelope.data.preview.waveform;
    expect(waveform.peaks.length).toBeGreaterThanOrEqual(100);
    expect(envelope.data.metadata.audio.loudness.integratedLufs).toBeLessThan(0);
    await page.waitForSelector("[data-role=waveform][data-drawn=true]");
    expect(await page.textContent("[data-role=loudness]")).toMatch(/LUFS integrated/);
    // Something was drawn: the canvas holds bar-coloured pixels in its middle row.
    const inked = await page.$eval("[data-role=waveform]", (c) => {
      const canvas = c as HTMLCanvasElement;
      const row = canvas.getContext("2d")!.getImageData(0, canvas.height / 2, canvas.width, 1).data;
      let n = 0;
      for (let i = 3; i < row.length; i += 4) if (row[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(200);
    await page.locator("#player").screenshot({ path: join(shots, "waveform.png") });
  }, 180_000);
});
