import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The playground at `/` in Debian's Chromium against the real `npm start` (wrangler dev + media runner), with
// sample files on a loopback origin and a loopback oEmbed fake, all shared by the project (test/browser/global-setup.ts).
// Screenshots go to test/.fixtures/screenshots (gitignored); PLAYGROUND_README_SHOT=1 also writes the README's docs/playground.png.
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", ".fixtures", "screenshots");
const youtube = "https://www.youtube.com/watch?v=dQw4w9WgXcQ";

describe("playground page", () => {
  const shared = inject("fixturesService");
  const origin = { url: shared.playgroundOrigin };
  const service = { base: shared.base };
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;
  const requests: string[] = [];
  const responses: { method: string; url: string; status: number }[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    profileDir = mkdtempSync(join(tmpdir(), "playground-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
      viewport: { width: 1100, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("request", (r) => requests.push(r.url()));
    page.on("response", (r) => responses.push({ method: r.request().method(), url: r.url(), status: r.status() }));
    page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.goto(`${service.base}/?samples=${encodeURIComponent(`${origin.url}/media/`)}`);
    await page.waitForSelector("#app[data-ready]");
  }, 150_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  /** Waits for the page to finish an inspection and returns the final envelope it shows as raw JSON. */
  async function finished(): Promise<any> {
    await page.waitForSelector("#app[data-state=done]", { timeout: 90_000 });
    const raw = JSON.parse(await page.textContent("#raw-json") ?? "null");
    return raw?.job ? raw.data : raw;
  }

  /** The thumbnail's fade-in has ended (its computed opacity is 1), or there is no thumbnail. */
  async function fadedIn(): Promise<void> {
    await page.waitForFunction(() => {
      const thumb = document.querySelector("#thumb");
      return !thumb || !thumb.classList.contains("loaded") || getComputedStyle(thumb).opacity === "1";
    }, null, { timeout: 5_000 }).catch(() => undefined);
  }

  async function clickSample(file: string, shot: string) {
    await page.click(`button.sample[data-url$="/${file}"]`);
    const envelope = await finished();
    // Shot once the thumbnail (if any) has faded in; a failing assertion below still leaves the picture.
    await page.waitForFunction(() => document.querySelector("#thumb")?.classList.contains("loaded") ?? true, null, { timeout: 10_000 })
      .catch(() => undefined);
    await fadedIn();
    await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
    return envelope;
  }

  async function expectVisuals(envelope: any) {
    const preview = envelope.data.preview;
    // Placeholder: the blurhash drawn on the canvas (opaque pixels).
    await page.waitForSelector("#placeholder[data-drawn=true]");
    const alpha = await page.$eval("#placeholder", (c) => {
      const canvas = c as HTMLCanvasElement;
      const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
      return { opaque: data.filter((_, i) => i % 4 === 3 && data[i] === 255).length, pixels: canvas.width * canvas.height };
    });
    expect(alpha.opaque).toBe(alpha.pixels);
    // Thumbnail: loaded from the service, then faded in.
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>("#thumb");
      return !!img && img.complete && img.naturalWidth > 0 && img.classList.contains("loaded");
    }, null, { timeout: 20_000 }).catch(async (error: unknown) => {
      const seen = responses.filter((r) => r.url.includes("thumbnail"));
      const asked = requests.filter((u) => u.includes("thumbnail"));
      const state = await page.$eval("#thumb", (i) => {
        const img = i as HTMLImageElement;
        return { complete: img.complete, w: img.naturalWidth, cls: img.className, error: img.dataset.error ?? null };
      }).catch(() => "no #thumb");
      throw new Error(`thumbnail not shown: ${String(error)}\nimg ${JSON.stringify(state)}\nrequests ${JSON.stringify(asked)}\nresponses ${JSON.stringify(seen)}`);
    });
    const thumb = await page.$eval("#thumb", (i) => ({ src: (i as HTMLImageElement).src, w: (i as HTMLImageElement).naturalWidth }));
    expect(thumb.src).toBe(new URL(preview.thumbnail.url, service.base).href);
    expect(thumb.w).toBe(Number(preview.thumbnail.dimensions.split("x")[0]));
    // Palette swatches: exactly preview.palette.colors, in order.
    const swatches = await page.$$eval("#palette li", (items) =>
      items.map((li) => ({ hex: li.getAttribute("data-hex"), share: Number(li.getAttribute("data-share")) })));
    expect(preview.palette.colors.length).toBeGreaterThanOrEqual(2);
    expect(swatches).toEqual(preview.palette.colors);
    expect(preview.palette.dominant).toBe(preview.palette.colors[0].hex);
  }

  async function expectPlayer(component: string) {
    const tag = await page.$eval("[data-role=player]", (el) => el.tagName.toLowerCase());
    expect(tag).toBe(component);
  }

  async function expectStagesComplete(envelope: any) {
    expect(envelope.processing.status).toBe("complete");
    const chips = await page.$$eval("#stages li", (items) => items.map((li) => [li.getAttribute("data-stage"), li.getAttribute("data-state")]));
    expect(chips.map(([stage]) => stage).sort()).toEqual([...envelope.processing.completedStages].sort());
    expect(chips.every(([, state]) => state === "done")).toBe(true);
  }

  it("shows the sample links for the given samples origin", async () => {
    await page.screenshot({ path: join(shots, "initial.png"), fullPage: true });
    // The page's script is the bundle; its TypeScript sources are not published (public/.assetsignore).
    expect((await fetch(`${service.base}/vendor/playground/playground.js`)).status).toBe(200);
    expect((await fetch(`${service.base}/vendor/blurhash/blurhash.js`)).status).toBe(200);
    expect((await fetch(`${service.base}/playground/src/main.ts`)).status).toBe(404);
    expect(await page.isVisible("#results")).toBe(false);
    const links = await page.$$eval("button.sample", (b) => b.map((x) => x.getAttribute("data-url")));
    expect(links).toEqual([
      ...["image.jpg", "image.png", "video.mp4", "video.webm", "audio.mp3", "audio.flac"].map((f) => `${origin.url}/media/${f}`),
      youtube,
    ]);
  });

  it("inspects an image: placeholder, thumbnail, palette, <img> player, stages, timings, headers", async () => {
    const envelope = await clickSample("image.jpg", "image");
    expect(envelope.data.playback.component).toBe("img");
    await expectVisuals(envelope);
    await expectPlayer("img");
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>("[data-role=player]")?.naturalWidth ?? 0) > 0);
    await expectStagesComplete(envelope);
    expect(await page.textContent("#facts")).toContain("640 × 400");
    expect(await page.$$eval("#timings .bar", (b) => b.length)).toBeGreaterThan(0);
    expect(await page.textContent("#bytes")).toMatch(/Bytes pulled from the origin: Worker \d/);
    expect(await page.textContent("#headers")).toContain("content-type");
    expect(await page.textContent("#curl")).toContain(`${origin.url}/media/image.jpg`);
  });

  it("inspects a video through the 202 and the job, typed and submitted with the keyboard", async () => {
    const url = `${origin.url}/media/video.mp4?run=${Date.now()}`;
    await page.focus("#url");
    await page.fill("#url", url);
    await page.keyboard.press("Enter");
    const envelope = await finished();
    const inspectCalls = responses.filter((r) => r.method === "POST" && r.url.includes("/api/v1/inspect?profile=standard"));
    expect(inspectCalls.at(-1)?.status).toBe(202);
    expect(responses.some((r) => r.url.includes("/api/v1/job/") && r.status === 200)).toBe(true);
    // While the job ran, the stage chips were refreshed from the cheapest answer (fast, identity only). With
    // direct dispatch a small video can finish before the second poll; then there was nothing to refresh.
    const jobPolls = responses.filter((r) => r.url.includes("/api/v1/job/")).length;
    if (jobPolls > 1) expect(responses.some((r) => r.url.includes("profile=fast&fields=identity") && r.status < 300)).toBe(true);
    expect(envelope.data.metadata.video.fps).toBe(25);
    await expectVisuals(envelope);
    await expectPlayer("video");
    expect(await page.$eval("video", (v) => (v as HTMLVideoElement).poster)).toBe(new URL(envelope.data.preview.thumbnail.url, service.base).href);
    await expectStagesComplete(envelope);
    expect(await page.$eval("#progress", (p) => (p as HTMLProgressElement).value)).toBe(100);
    expect(await page.textContent("#bytes")).toMatch(/media runner \d/);
    await page.screenshot({ path: join(shots, "video.png"), fullPage: true });
    if (process.env.PLAYGROUND_README_SHOT === "1") {
      mkdirSync(join(root, "docs"), { recursive: true });
      await page.setViewportSize({ width: 1000, height: 880 });
      await page.evaluate(() => { (document.activeElement as HTMLElement | null)?.blur(); scrollTo(0, 0); });
      const raw = join(shots, "readme-raw.png");
      await page.screenshot({ path: raw });
      // An 8-bit palette PNG keeps the committed file small (ffmpeg is already needed for the samples).
      execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-loglevel", "error", "-y", "-i", raw, "-vf",
        "split[a][b];[a]palettegen=max_colors=192:stats_mode=full[p];[b][p]paletteuse=dither=none", join(root, "docs", "playground.png")]);
      await page.setViewportSize({ width: 1100, height: 900 });
    }
  });

  it("inspects an audio file: <audio> player, no visual preview", async () => {
    const envelope = await clickSample("audio.mp3", "audio");
    expect(envelope.data.playback.component).toBe("audio");
    await expectPlayer("audio");
    expect(await page.$("#placeholder")).toBeNull();
    expect(await page.$("#palette")).toBeNull();
    await expectStagesComplete(envelope);
    expect(await page.textContent("#facts")).toContain("44,100 Hz");
  });

  it("inspects a provider URL: the embed profile's iframe, held until the visitor asks", async () => {
    const envelope = await clickSample("watch?v=dQw4w9WgXcQ", "provider");
    expect(envelope.data.playback.component).toBe("iframe");
    await expectPlayer("iframe");
    const embedCall = responses.find((r) => r.url.includes("profile=embed"));
    expect(embedCall?.status).toBe(200);
    const iframe = await page.$eval("[data-role=player]", (f) => ({ src: f.getAttribute("src"), dataSrc: f.getAttribute("data-src") }));
    expect(iframe.src).toBeNull();
    expect(iframe.dataSrc).toMatch(/^https:\/\/www\.youtube(-nocookie)?\.com\/embed\/dQw4w9WgXcQ/);
    await expectStagesComplete(envelope);
    expect(await page.textContent("#card-title")).toContain("YouTube title");
    // The provider's own thumbnail is offered as a link; nothing is fetched from the provider.
    expect(await page.$eval(".remote-thumb a", (a) => a.getAttribute("href"))).toBe(envelope.data.preview.thumbnail.url);
    expect(await page.$("#thumb")).toBeNull();
  });

  it("shows a failed stage with its reason (an image whose pixels do not decode)", async () => {
    await page.fill("#url", `${origin.url}/corrupt/image.png?keep=33&run=${Date.now()}`);
    await page.press("#url", "Enter");
    const envelope = await finished();
    await page.screenshot({ path: join(shots, "failed-stage.png"), fullPage: true });
    const failed: string[] = envelope.processing.failedStages ?? [];
    expect(failed).toContain("preview:thumbnail");
    const chips = await page.$$eval("#stages li[data-state=failed]", (items) =>
      items.map((li) => [li.getAttribute("data-stage"), li.querySelector(".chip-reason")?.textContent ?? ""]));
    expect(chips.map(([stage]) => stage).sort()).toEqual([...failed].sort());
    for (const [, reason] of chips) expect(reason).toMatch(/\w{4,}/);
    // The browser cannot show the file either: a note replaces the broken-image icon.
    await page.waitForSelector(".player-note");
    expect(chips.every(([, reason]) => reason !== "no reason given")).toBe(true);
  });

  it("shows the error envelope's code and message", async () => {
    await page.fill("#url", "http://169.254.169.254/latest/meta-data/");
    await page.click("button[type=submit]");
    await page.waitForSelector("#error:not([hidden])");
    expect(await page.textContent("#error .error-code")).toBe("SSRF_BLOCKED");
    expect(await page.textContent("#error")).toContain("HTTP 403");
    expect(await page.isVisible("#card")).toBe(false);
    await page.screenshot({ path: join(shots, "error.png"), fullPage: true });
  });

  it("passes the profile and fields options (embed card; fast with two namespaces)", async () => {
    await page.selectOption("#profile", "embed");
    const embed = await clickSample("watch?v=dQw4w9WgXcQ", "embed-profile");
    expect(embed.profile).toBe("embed");
    await expectPlayer("iframe");
    expect(await page.$eval("[data-role=player]", (f) => f.getAttribute("data-src"))).toBe(embed.data.render.attributes.src);

    await page.selectOption("#profile", "fast");
    await page.click(".options summary");
    await page.check("input[name=fields][value=identity]");
    await page.check("input[name=fields][value=metadata]");
    await page.check("input[name=expand][value=rawHeaders]");
    await page.check("#debug");
    const fast = await clickSample("image.png", "fast-fields");
    expect(Object.keys(fast.data).sort()).toEqual(["identity", "metadata", "network"]);
    expect(fast.projection.profile).toBe("fast");
    expect(await page.textContent("#curl")).toContain("profile=fast&fields=identity%2Cmetadata&expand=rawHeaders&debug=true");
    expect(await page.textContent("#origin-headers")).toContain("image/png");
    for (const box of ["input[name=fields][value=identity]", "input[name=fields][value=metadata]", "input[name=expand][value=rawHeaders]", "#debug"]) {
      await page.uncheck(box);
    }
    await page.selectOption("#profile", "standard");
  });

  it("stays readable at 360 px wide (no horizontal scrolling)", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.click(`button.sample[data-url$="/image.png"]`);
    await finished();
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>("#thumb")?.classList.contains("loaded"));
    await fadedIn();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(shots, "narrow-360.png"), fullPage: true });
  });

  it("made no request outside loopback and logged no script error", () => {
    const outside = requests.filter((u) => {
      const url = new URL(u);
      if (url.protocol === "data:" || url.protocol === "blob:") return false;
      return url.hostname !== "127.0.0.1" && url.hostname !== "localhost";
    });
    expect(requests.length).toBeGreaterThan(10);
    expect(outside).toEqual([]);
    expect(consoleErrors.filter((e) => !e.includes("403"))).toEqual([]);
  });
});
