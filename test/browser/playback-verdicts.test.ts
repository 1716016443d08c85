import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type BuildProfile, verdictFor, vendorBuild } from "../../shared/media/browser-support.ts";
import { codecsOf } from "../../shared/media/codec-string.ts";
import { codecSamples } from "../../testkit/browser/codec-samples.ts";
import { waitFor } from "../../testkit/wait-for.ts";

// Every generated codec sample is inspected through the real `npm start`; then Debian's Chromium is asked what
// it says for `playback.codecs` (canPlayType, MediaSource.isTypeSupported) and whether a <video>/<audio> element
// reaches `loadeddata`. The `chrome` verdict describes Google Chrome (proprietary codecs, platform HEVC decoder);
// the test detects what THIS build has and checks the table's verdict for that build against the browser.
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", ".fixtures", "screenshots");
/** Polls of an inspection before giving up (1 s apart): the runner finishes these small files in seconds. */
const maxPolls = 60;

interface BrowserAnswer { canPlay: string; mse: boolean; loaded: boolean }

describe("chrome verdicts agree with Chromium", () => {
  // The project's service and the codec samples' origin (test/browser/global-setup.ts).
  const shared = inject("fixturesService");
  const origin = { url: shared.codecOrigin };
  const service = { base: shared.base };
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  let build: BuildProfile;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    profileDir = mkdtempSync(join(tmpdir(), "verdicts-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${service.base}/`);
    // What this build decodes: proprietary codecs (H.264/AAC) and a platform HEVC decoder.
    const has = await page.evaluate(() => ({
      proprietary: document.createElement("video").canPlayType('video/mp4; codecs="avc1.42E01E"') !== "",
      hevc: document.createElement("video").canPlayType('video/mp4; codecs="hvc1.1.6.L93.B0"') !== "",
    }));
    build = { proprietaryCodecs: has.proprietary, hardwareDecoders: has.hevc };
    console.log(`[verdicts] checking Chromium build: proprietary codecs ${has.proprietary ? "yes" : "no"}, HEVC decoder ${has.hevc ? "yes" : "no"}`);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  async function inspect(file: string): Promise<any> {
    const url = `${origin.url}/media/${file}`;
    return waitFor(async () => {
      const body: any = await (await fetch(`${service.base}/api/v1/inspect?url=${encodeURIComponent(url)}&profile=standard`)).json();
      return (body.processing?.status === "complete" || body.processing?.status === "failed") && body;
    }, { timeoutMs: maxPolls * 1000, intervalMs: 200, what: `the inspection of ${file} finished` });
  }

  async function ask(type: string, src: string, audio: boolean): Promise<BrowserAnswer> {
    return page.evaluate(async ({ type, src, audio }) => {
      const el = document.createElement(audio ? "audio" : "video");
      const canPlay = el.canPlayType(type);
      const mse = typeof MediaSource !== "undefined" && MediaSource.isTypeSupported(type);
      const loaded = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 15_000);
        el.addEventListener("loadeddata", () => { clearTimeout(timer); resolve(true); }, { once: true });
        el.addEventListener("error", () => { clearTimeout(timer); resolve(false); }, { once: true });
        el.muted = true;
        el.preload = "auto";
        el.src = src;
        document.body.append(el);
      });
      el.remove();
      return { canPlay, mse, loaded };
    }, { type, src, audio });
  }

  const rows: string[] = [];
  for (const file of Object.keys(codecSamples)) {
    it(`${file}: playback.codecs, and the chrome verdict matches canPlayType and loadeddata`, async () => {
      const body = await inspect(file);
      const data = body.data;
      const type: string | undefined = data.playback?.codecs;
      expect(type, `${file} has playback.codecs`).toBeTruthy();
      const published = data.playback.compatibility.chrome;
      const facts = {
        // A single-codec type (audio/mpeg, audio/flac) is bare: its one codec is the metadata's.
        mime: data.identity.mime, codecs: codecsOf(type!).length > 0 ? codecsOf(type!) : [data.metadata.audio.codec], hdr: data.metadata?.video?.hdr, faststart: data.metadata?.video?.faststart,
      };
      // The published verdict is the table's, for the vendor's build.
      expect(published).toEqual(verdictFor("chrome", facts, vendorBuild));
      const expected = verdictFor("chrome", facts, build);
      const answer = await ask(type!, `${origin.url}/media/${file}`, data.semantic.semanticType === "audio");
      rows.push(`${file.padEnd(18)} ${type!.padEnd(58)} chrome=${published.verdict} this-build=${expected.verdict} canPlayType=${JSON.stringify(answer.canPlay)} mse=${answer.mse} loadeddata=${answer.loaded}`);
      const plays = answer.canPlay !== "" && answer.loaded;
      expect({ file, type, plays }).toEqual({ file, type, plays: expected.verdict === "native" });
      // A codec list MSE accepts is one this build decodes (the table never says mse for a file).
      if (expected.verdict === "native" && /mp4|webm/.test(type!)) expect(answer.mse).toBe(true);
    }, 120_000);
  }

  it("the playground shows one verdict per platform (screenshot: test/.fixtures/screenshots/playground-verdicts.png)", async () => {
    const url = `${origin.url}/media/hevc.mp4`;
    await page.goto(`${service.base}/?url=${encodeURIComponent(url)}&profile=standard`);
    await page.waitForSelector("#app[data-state=done]", { timeout: 90_000 });
    await page.waitForSelector("#verdicts", { timeout: 30_000 });
    const shown = await page.$$eval("#verdicts li", (items) => items.map((li) => [li.getAttribute("data-browser"), li.getAttribute("data-verdict")]));
    expect(Object.fromEntries(shown)).toEqual({ chrome: "native", firefox: "native", safari: "native", ios: "native", android: "native", edge: "native" });
    expect(await page.textContent("#playback-codecs")).toBe('video/mp4; codecs="hvc1.1.6.L60.90"');
    await page.locator("#verdicts").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, "playground-verdicts.png"), fullPage: true });
  }, 120_000);

  it("prints the agreement table", () => {
    console.log(["[verdicts]", ...rows].join("\n"));
    expect(rows.length).toBe(Object.keys(codecSamples).length);
  });
});
