// Issue 3, image enrichments through the Worker (SELF.fetch), over the committed fixtures served by the
// loopback origin. Fixture scene (test/fixtures/images/generate.mjs): 96x64, the left 70 % is `main`
// (208,48,48), the right 30 % is `other` (32,80,192) or transparent in the alpha variants. CMYK JPEG is not
// decoded at the edge: it completes through the queue and the real media runner started by global-setup.
import { SELF, env, runInDurableObject } from "cloudflare:test";
import { PhotonImage } from "@cf-wasm/photon/workerd";
import { decode as decodeBlurhash, isBlurhashValid } from "blurhash";
import { describe, expect, it } from "vitest";
import { normalizeUrl } from "../../../worker/record/target-url.ts";
import { inspect, media, origin, originStats } from "../../../testkit/worker/helpers.ts";
import { waitFor } from "../../../testkit/wait-for.ts";

const resources = (env as unknown as { RESOURCE: DurableObjectNamespace }).RESOURCE;

const main = [208, 48, 48] as const;
const mainGray = [110, 110, 110] as const; // luminance of `main` once libvips writes the scene as grey
const oneYearSeconds = 365 * 24 * 3600;
const previewStages = ["preview:thumbnail", "preview:blurhash", "preview:palette"];
const allImageStages = ["semantic", "mediaFormat", "metadata:image", "metadata:provenance", ...previewStages];

interface ImageCase {
  file: string;
  colorSpace: string;
  hasAlpha: boolean;
  dominant: readonly number[];
  /** Largest RGB distance accepted between palette.dominant and the scene's dominant colour. */
  tolerance: number;
  /** Not decoded by photon: goes to the media runner, so only `full` waits for it. */
  runner?: boolean;
}

const cases: ImageCase[] = [
  { file: "png-alpha.png", colorSpace: "srgb", hasAlpha: true, dominant: main, tolerance: 8 },
  { file: "png-opaque.png", colorSpace: "srgb", hasAlpha: false, dominant: main, tolerance: 8 },
  { file: "jpeg-rgb.jpg", colorSpace: "srgb", hasAlpha: false, dominant: main, tolerance: 16 },
  { file: "jpeg-gray.jpg", colorSpace: "gray", hasAlpha: false, dominant: mainGray, tolerance: 16 },
  { file: "webp-lossy.webp", colorSpace: "srgb", hasAlpha: false, dominant: main, tolerance: 16 },
  { file: "webp-alpha.webp", colorSpace: "srgb", hasAlpha: true, dominant: main, tolerance: 16 },
  { file: "gif-opaque.gif", colorSpace: "srgb", hasAlpha: false, dominant: main, tolerance: 16 },
  { file: "gif-transparent.gif", colorSpace: "srgb", hasAlpha: true, dominant: main, tolerance: 16 },
  // CMYK -> sRGB goes through libvips' default CMYK profile on the runner: a looser match.
  { file: "jpeg-cmyk.jpg", colorSpace: "cmyk", hasAlpha: false, dominant: main, tolerance: 48, runner: true },
];

const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const distance = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

async function requestsFor(url: string) {
  const nonce = new URL(url).search;
  return (await originStats()).requests.filter((r) => r.path.endsWith(nonce) || r.path.includes(`${nonce}&`));
}

/** Fetches a thumbnail back through the Worker and decodes it with photon. */
async function fetchThumbnail(path: string) {
  const response = await SELF.fetch(`http://service${path}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(response.status, new TextDecoder().decode(bytes.subarray(0, 200))).toBe(200);
  const image = PhotonImage.new_from_byteslice(bytes);
  try {
    const width = image.get_width();
    const px = image.get_raw_pixels();
    const at = (x: number, y: number) => Array.from(px.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
    return { headers: response.headers, bytes, width, height: image.get_height(), at };
  } finally {
    image.free();
  }
}

/** Everything a complete image answer must carry, checked on the wire and by fetching the thumbnail back. */
async function expectCompleteImage(body: any, fx: ImageCase) {
  expect(body.processing).toEqual({
    status: "complete", completion: 1, enrichmentsPending: false, completedStages: allImageStages, pendingStages: [],
  });
  expect(body.data.metadata.image).toEqual({ colorSpace: fx.colorSpace, hasAlpha: fx.hasAlpha, width: 96, height: 64, frames: 1 });
  for (const stage of allImageStages) expect(body.enrichmentSources[stage]).toBe("fresh");

  const { thumbnail, placeholder, palette, dominantColor } = body.data.preview;
  // Smaller than the default 320 px bound: never upscaled, so the thumbnail keeps 96x64.
  expect(thumbnail.dimensions).toBe("96x64");
  expect(thumbnail.url).toMatch(/^\/api\/v1\/thumbnails\/[0-9a-f]{64}-[0-9a-f]{16}-96x64\.webp$/);
  const thumb = await fetchThumbnail(thumbnail.url);
  expect([thumb.width, thumb.height]).toEqual([96, 64]);
  expect(thumb.headers.get("content-type")).toBe("image/webp");
  expect(new TextDecoder().decode(thumb.bytes.subarray(8, 12))).toBe("WEBP");
  const maxAge = Number(/max-age=(\d+)/.exec(thumb.headers.get("cache-control") ?? "")?.[1] ?? 0);
  expect(maxAge).toBeGreaterThanOrEqual(oneYearSeconds);
  // The scene survives: main colour on the left; the right 30 % stays transparent in alpha images.
  expect(distance(thumb.at(10, 32), fx.dominant)).toBeLessThan(fx.tolerance + 8);
  expect(thumb.at(90, 32)[3]).toBe(fx.hasAlpha ? 0 : 255);

  expect(placeholder.type).toBe("blurhash");
  expect(isBlurhashValid(placeholder.value).result).toBe(true);
  const blur = decodeBlurhash(placeholder.value, 32, 32);
  expect(blur).toHaveLength(32 * 32 * 4);
  // A placeholder of this scene is not flat: its left edge is nearer the main colour than its right edge.
  const left = Array.from(blur.subarray((16 * 32 + 2) * 4, (16 * 32 + 2) * 4 + 3));
  if (!fx.hasAlpha) {
    const right = Array.from(blur.subarray((16 * 32 + 30) * 4, (16 * 32 + 30) * 4 + 3));
    expect(distance(left, fx.dominant)).toBeLessThan(distance(right, fx.dominant));
  }
  expect(distance(left, fx.dominant)).toBeLessThan(80);

  expect(palette.dominant).toMatch(/^#[0-9a-f]{6}$/);
  expect(dominantColor).toBe(palette.dominant);
  expect(distance(rgbOf(palette.dominant), fx.dominant)).toBeLessThan(fx.tolerance);
}

describe("an origin that fails the full download after a good probe", () => {
  it("ends the preview stages as failed (complete, listed in failedStages), never pending", async () => {
    const url = `${origin}/probe-only/image-1280x720.png?n=${crypto.randomUUID()}`;
    const res = await inspect(url, "profile=standard");
    expect(res.status).toBe(200);
    expect(res.body.processing.status).toBe("complete");
    expect(res.body.processing.failedStages).toEqual(["preview:thumbnail", "preview:blurhash", "preview:palette"]);
    expect(res.body.data.metadata.image).toMatchObject({ width: 1280, height: 720 });
    expect(res.body.data.preview).toBeUndefined();
  });
});

describe("images through the Worker: every edge format and CMYK via the runner", () => {
  it.each(cases.filter((c) => !c.runner))("$file: standard answers 200 complete with previews", async (fx) => {
    const url = media(fx.file);
    const { status, body } = await inspect(url);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, responseSource: "fresh", cached: false, projection: { profile: "standard", hiddenFields: [] } });
    expect(body.data.identity.mime).toBe(`image/${fx.file.endsWith(".jpg") ? "jpeg" : fx.file.split(".")[1]}`);
    expect(body.data.diagnostics).toBeUndefined();
    expect(body.job).toBeUndefined();
    await expectCompleteImage(body, fx);
  });

  it.each(cases)("$file: full answers 200 complete with diagnostics", async (fx) => {
    const url = media(fx.file);
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: true, responseSource: "fresh", projection: { profile: "full", hiddenFields: [] } });
    await expectCompleteImage(body, fx);
    const timings = body.data.diagnostics.timings;
    for (const key of ["total", "semantic", "mediaFormat", "preview"]) expect(Number.isInteger(timings[key]), key).toBe(true);
    expect(timings.total).toBeGreaterThanOrEqual(timings.preview);
  }, 40_000);

  it("CMYK JPEG under standard is honestly pending (runner work), then completes", async () => {
    const fx = cases.find((c) => c.runner)!;
    const url = media(fx.file);
    const first = await inspect(url);
    // Either the runner already finished (200) or the answer is a 202 with a job and null previews.
    if (first.status === 202) {
      expect(first.body.job).toMatchObject({ status: "processing" });
      expect(first.body.processing.status).toBe("partial");
      expect(first.body.processing.pendingStages).toEqual(expect.arrayContaining(previewStages));
      expect(first.body.data.preview).toEqual({ thumbnail: null, placeholder: null, palette: null, dominantColor: null });
    } else expect(first.status).toBe(200);
    const full = await inspect(url, "profile=full");
    expect(full.status).toBe(200);
    await expectCompleteImage(full.body, fx);
    expect(full.body.responseSource).toBe("cache");
  }, 40_000);
});

describe("profile=fast does not wait for generated previews", () => {
  it.each(["png-opaque.png", "jpeg-rgb.jpg", "webp-alpha.webp"])("%s: fast answers, the alarm finishes the previews", async (file) => {
    const fx = cases.find((c) => c.file === file)!;
    const url = media(file);
    const started = Date.now();
    const fast = await inspect(url, "profile=fast");
    expect(fast.status).toBe(200);
    expect(fast.body.projection).toEqual({ profile: "fast", hiddenFields: ["preview"] });
    expect(fast.body.data.preview).toBeUndefined();
    expect(fast.body.data.metadata.image).toEqual({ colorSpace: fx.colorSpace, hasAlpha: fx.hasAlpha, width: 96, height: 64, frames: 1 });
    expect(fast.body.processing).toMatchObject({ status: "partial", enrichmentsPending: true, pendingStages: previewStages });

    // Poll with `fast` (which never runs the edge stages itself) so completion proves the background alarm did it.
    const deadlineMs = 10_000;
    let processing = fast.body.processing;
    while (processing.status !== "complete" && Date.now() - started < deadlineMs) {
      await new Promise((r) => setTimeout(r, 50));
      processing = (await inspect(url, "profile=fast")).body.processing;
    }
    expect(processing.status).toBe("complete");
    const downloadsBefore = (await requestsFor(url)).length;

    const standard = await inspect(url);
    expect(standard.status).toBe(200);
    expect(standard.body).toMatchObject({ responseSource: "cache", cached: true });
    await expectCompleteImage(standard.body, fx);
    // Answered from the record: the origin saw nothing more.
    expect(await requestsFor(url)).toHaveLength(downloadsBefore);
  });
});

describe("profile=fast on an image only the runner can decode", () => {
  it("jpeg-cmyk.jpg: fast answers at once, the runner still gets the previews without another call", async () => {
    const fx = cases.find((c) => c.runner)!;
    const url = media(fx.file);
    const fast = await inspect(url, "profile=fast");
    expect(fast.status).toBe(200);
    expect(fast.body.processing.pendingStages).toEqual(previewStages);
    // Wait on the job view (GET /api/v1/job never starts work itself), not on further inspections.
    const runnerCalls = await waitFor(async () =>
      ((await (await fetch(`${origin}/__extra/runnerCalls`)).json()) as Record<string, number>)[url] ?? 0, { what: "a runner call" });
    expect(runnerCalls).toBeGreaterThan(0);
  }, 20_000);
});

describe("images over the decode bound go to the media runner", () => {
  it("a 1280x720 PNG with MAX_DECODE_PIXELS below its pixel count completes on the runner, not at the edge", async () => {
    const url = media("image-1280x720.png");
    const pixelBound = 1280 * 720 - 1;
    // Per-object configuration (the object reads `this.env` on each call): only this resource sees the lower bound.
    const stub = resources.get(resources.idFromName(normalizeUrl(new URL(url))));
    await runInDurableObject(stub, (instance) => {
      Object.defineProperty(instance, "env", { value: { ...env, MAX_DECODE_PIXELS: String(pixelBound) } });
    });
    const { status, body } = await inspect(url, "profile=full");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.processing).toMatchObject({ status: "complete", pendingStages: [] });
    expect(body.processing.failedStages).toBeUndefined();
    expect(body.data.metadata.image).toMatchObject({ width: 1280, height: 720, hasAlpha: false });
    // Longest side bounded by the default 320 px, aspect kept.
    expect(body.data.preview.thumbnail.dimensions).toBe("320x180");
    const thumb = await fetchThumbnail(body.data.preview.thumbnail.url);
    expect([thumb.width, thumb.height]).toEqual([320, 180]);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    expect(isBlurhashValid(body.data.preview.placeholder.value).result).toBe(true);
    expect(body.data.preview.palette.dominant).toMatch(/^#[0-9a-f]{6}$/);
    const stages = await runInDurableObject(stub, (_instance, state) =>
      JSON.parse(state.storage.sql.exec<{ record: string }>(`SELECT record FROM resource`).one().record).stages);
    for (const stage of previewStages) expect(stages[stage]).toMatchObject({ state: "done", engine: "runner" });
  }, 40_000);
});

describe("a stage that fails ends done-with-no-result, never pending", () => {
  it("a PNG whose header is valid but whose pixel data is garbage completes with failed preview stages", async () => {
    const url = media("png-opaque.png").replace("/media/", "/corrupt/") + "&keep=33";
    // photon's failure hands the file to the runner (libvips and ffmpeg read some files photon refuses); `full`
    // waits for its verdict, then `standard` answers from the finished record.
    for (const profile of ["full", "standard"]) {
      const { status, body } = await inspect(url, `profile=${profile}`);
      expect(status, JSON.stringify(body)).toBe(200);
      // The header was readable (96x64 from IHDR), so metadata:image is done; the decode failed, so the
      // previews are finished without a result: complete, and null never turns into a lie.
      expect(body.processing).toEqual({
        status: "complete", completion: 1, enrichmentsPending: false, completedStages: allImageStages, pendingStages: [],
        failedStages: previewStages,
      });
      expect(body.data.metadata.image).toMatchObject({ width: 96, height: 64 });
      expect(body.data.preview).toBeUndefined();
    }
    // No job left running and a fast call agrees.
    const fast = await inspect(url, "profile=fast");
    expect(fast.body.processing.pendingStages).toEqual([]);
  });
});
