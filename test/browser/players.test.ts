import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ogs from "open-graph-scraper";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { shareIdOf } from "../../shared/format/share-id.ts";
import { AudioWaveform } from "../../shared/shapes/media-data.ts";

// Clients nobody here wrote, against the real `npm start` and the README's samples server: peaks.js loading the
// waveform's audiowaveform JSON in Debian's Chromium, the audio oEmbed html measured as Chromium draws it, the
// audio share page's player under its CSP, and open-graph-scraper given the share URL itself.

const root = join(import.meta.dirname, "..", "..");
const peaksBundle = readFileSync(join(root, "node_modules", "peaks.js", "dist", "peaks.js"));

/** A page that hands peaks.js the JSON's URL, and reports what it loaded (its own WaveformData). */
function peaksPage(audioUrl: string, jsonUrl: string, samplesPerPixel: number): string {
  return `<!doctype html><html><body>
<div id="zoomview" style="width:800px;height:200px"></div>
<div id="overview" style="width:800px;height:80px"></div>
<audio id="audio" src="${audioUrl}" preload="metadata"></audio>
<script src="/peaks.js"></script>
<script>
window.loaded = new Promise((resolve) => {
  peaks.init({
    zoomview: { container: document.getElementById("zoomview") },
    overview: { container: document.getElementById("overview") },
    mediaElement: document.getElementById("audio"),
    dataUri: { json: ${JSON.stringify(jsonUrl)} },
    zoomLevels: [${samplesPerPixel}, ${samplesPerPixel * 2}, ${samplesPerPixel * 4}],
  }, (err, instance) => {
    if (err) return resolve({ error: String(err && err.message || err) });
    const data = instance.getWaveformData();
    const peaks = [];
    for (let c = 0; c < data.channels; c++) {
      const channel = data.channel(c);
      let peak = 0;
      for (let i = 0; i < data.length; i++) peak = Math.max(peak, channel.max_sample(i), -channel.min_sample(i));
      peaks.push(peak);
    }
    resolve({ channels: data.channels, length: data.length, sampleRate: data.sample_rate, scale: data.scale, bits: data.bits, peaks,
      canvases: document.querySelectorAll("#zoomview canvas").length });
  });
});
</script></body></html>`;
}

describe("players and unfurlers", () => {
  // The project's `npm start` beside `npm run samples`, in local mode's defaults (test/browser/global-setup.ts).
  const shared = inject("localService");
  const samples = { url: shared.samplesUrl };
  const service = { base: shared.base };
  let context: BrowserContext;
  let profileDir: string;
  let pages: Server;
  let pagesUrl: string;
  let currentPage = "";

  beforeAll(async () => {
    pages = createServer((req, res) => {
      if (req.url === "/peaks.js") res.writeHead(200, { "content-type": "text/javascript" }).end(peaksBundle);
      else res.writeHead(200, { "content-type": "text/html" }).end(currentPage);
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
    profileDir = mkdtempSync(join(tmpdir(), "players-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
    });
  }, 150_000);

  afterAll(async () => {
    await context?.close();
    await new Promise((resolve) => pages?.close(resolve));
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  const inspect = async (url: string, query = "profile=full") => {
    const res = await fetch(`${service.base}/api/v1/inspect?${query}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url }) });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: { identity: { shareUrl?: string }; preview?: { waveform?: { url?: string; peaks: number[] } } } };
  };

  it("peaks.js loads the waveform's audiowaveform JSON in Chromium: every channel, the same peaks", async () => {
    const audio = `${samples.url}/audio.flac`;
    const answer = await inspect(audio, "profile=full&expand=waveform");
    const path = answer.data.preview!.waveform!.url!;
    expect(path).toMatch(/^\/api\/v1\/waveforms\/[0-9a-f]{64}-[0-9a-f]{16}-\d+x\d+\.json$/);
    const jsonRes = await fetch(`${service.base}${path}`);
    expect(jsonRes.headers.get("content-type")).toContain("application/json");
    const doc = AudioWaveform.parse(await jsonRes.json());
    // 8-bit by default (peaks.js reads no other); the stored 16-bit form on request, its peaks never above the 8-bit ones.
    expect(doc.bits).toBe(8);
    const fine = AudioWaveform.parse(await (await fetch(`${service.base}${path}?bits=16`)).json());
    expect({ ...fine, bits: 8, data: [] }).toEqual({ ...doc, data: [] });
    fine.data.forEach((v, i) => expect(i % 2 === 0 ? doc.data[i]! <= (v * 127) / 32767 : doc.data[i]! >= (v * 127) / 32767).toBe(true));
    currentPage = peaksPage(audio, `${service.base}${path}`, doc.samples_per_pixel);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(`${pagesUrl}/peaks`);
    const loaded = await page.evaluate(() => (window as unknown as { loaded: Promise<Record<string, unknown>> }).loaded);
    expect(loaded.error).toBeUndefined();
    expect(loaded).toMatchObject({ channels: doc.channels, length: doc.length, sampleRate: doc.sample_rate, scale: doc.samples_per_pixel, bits: 8 });
    expect(loaded.canvases).toBeGreaterThan(0);
    const expected = Array.from({ length: doc.channels }, (_, c) => {
      let peak = 0;
      for (let i = 0; i < doc.length; i++) {
        peak = Math.max(peak, doc.data[(i * doc.channels + c) * 2 + 1]!, -doc.data[(i * doc.channels + c) * 2]!);
      }
      return peak;
    });
    expect(loaded.peaks).toEqual(expected);
    expect(Math.max(...expected)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  for (const [query, size] of [["", [480, 54]], ["&maxwidth=200", [200, 54]], ["&maxwidth=320&maxheight=40", [320, 40]]] as const) {
    it(`audio oEmbed${query || " (no limits)"}: Chromium draws the html at the document's ${size.join("x")}`, async () => {
      const res = await fetch(`${service.base}/oembed?url=${encodeURIComponent(`${samples.url}/audio.mp3`)}${query}`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { width: number; height: number; html: string; type: string; share_url?: string };
      expect([doc.width, doc.height]).toEqual(size);
      const page = await context.newPage();
      await page.setContent(`<!doctype html><html><body style="margin:0">${doc.html}</body></html>`);
      const box = await page.locator("audio").boundingBox();
      expect([box!.width, box!.height]).toEqual([doc.width, doc.height]);
      expect(doc.share_url).toBe(`${service.base}/v/${shareIdOf(`${samples.url}/audio.mp3`)}`);
      await page.close();
    });
  }

  it("the audio share page at /v/{id}: its player is drawn at the size its tags declare, under its CSP, with a card image", async () => {
    const audio = `${samples.url}/audio.mp3`;
    const shareUrl = (await inspect(audio, "profile=fast")).data.identity.shareUrl!;
    expect(shareUrl).toBe(`${service.base}/v/${shareIdOf(audio)}`);
    expect(shareUrl.slice(service.base.length)).not.toContain(".");
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    const response = await page.goto(shareUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/style-src 'unsafe-hashes' 'sha256-[A-Za-z0-9+/=]+'/);
    const meta = (selector: string) => page.locator(selector).getAttribute("content");
    expect(await meta('meta[property="og:type"]')).toBe("music.song");
    expect(await meta('meta[property="og:url"]')).toBe(shareUrl);
    const declared = [Number(await meta('meta[name="twitter:player:width"]')), Number(await meta('meta[name="twitter:player:height"]'))];
    const box = await page.locator("audio").boundingBox();
    expect([box!.width, box!.height]).toEqual(declared);
    const image = await meta('meta[property="og:image"]');
    expect(image).toBe(`${shareUrl}/card.png`);
    const png = new Uint8Array(await (await fetch(image!)).arrayBuffer());
    expect([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    const view = new DataView(png.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([Number(await meta('meta[property="og:image:width"]')), Number(await meta('meta[property="og:image:height"]'))]);
    expect(problems).toEqual([]);
    await page.close();
    // The card decodes in Chromium too (on a page of its own: the share page's CSP loads no image).
    const blank = await context.newPage();
    const decoded = await blank.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    }, `data:image/png;base64,${Buffer.from(png).toString("base64")}`).catch((e: unknown) => String(e));
    expect(decoded).toEqual([1200, 630]);
    await blank.close();
  });

  // open-graph-scraper validates URLs with a TLD by default: the loopback service has none, so only that check is relaxed.
  const ogsOptions = { urlValidatorSettings: { protocols: ["http", "https"], require_tld: false, require_protocol: false, require_host: true, require_valid_protocol: true, allow_underscores: false, allow_trailing_dot: false, allow_protocol_relative_urls: false, allow_fragments: true, allow_query_components: true, validate_length: true, disallow_auth: false, require_port: false } };

  it("open-graph-scraper reads the share URLs themselves: video.other for the MP4, music.song with an image for the MP3", async () => {
    const video = `${samples.url}/video.mp4`;
    const audio = `${samples.url}/audio.mp3`;
    // The query form ends in .mp4: the scraper refuses it without fetching, which is why /v/{id} exists.
    await expect(ogs({ url: `${service.base}/v?url=${encodeURIComponent(video)}`, ...ogsOptions })).rejects.toMatchObject({ result: { success: false } });
    const videoPage = await ogs({ url: `${service.base}/v/${shareIdOf(video)}`, ...ogsOptions });
    expect(videoPage.error).toBe(false);
    expect(videoPage.result).toMatchObject({ success: true, ogType: "video.other", ogUrl: `${service.base}/v/${shareIdOf(video)}` });
    expect(videoPage.result.ogVideo?.[0]?.url).toBe(video);
    const audioPage = await ogs({ url: `${service.base}/v/${shareIdOf(audio)}`, ...ogsOptions });
    expect(audioPage.error).toBe(false);
    expect(audioPage.result).toMatchObject({ success: true, ogType: "music.song" });
    expect(audioPage.result.ogAudio).toBe(audio);
    expect(audioPage.result.ogVideo).toBeUndefined();
    expect(audioPage.result.ogImage?.[0]?.url).toBe(`${service.base}/v/${shareIdOf(audio)}/card.png`);
  });

  it("a share id that is not a base64url http(s) URL is 400 INVALID_URL", async () => {
    for (const id of [shareIdOf("ftp://example.com/a.mp3"), "not*base64", "QQ"]) {
      const res = await fetch(`${service.base}/v/${id}`);
      expect(res.status, id).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INVALID_URL");
    }
  });
});
