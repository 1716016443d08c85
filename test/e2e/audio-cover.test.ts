// Audio share pages show the file's cover art: open-graph-scraper given /v/<id> of an MP3 and a FLAC carrying a
// cover (written by ffmpeg) reports the cover thumbnail as og:image, and that URL answers an image; an MP3 without
// a cover keeps the generated card. Against the real `npm start` (wrangler dev + media runner) on loopback.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ogs from "open-graph-scraper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shareIdOf } from "../../shared/format/share-id.ts";
import { makeCoverArtFixtures } from "../../testkit/cover-art-fixtures.ts";
import { startLoopbackOrigin, type LoopbackOrigin } from "../../testkit/loopback-origin.ts";
import { startService, type StartedService } from "../../testkit/start-service.ts";

let dir: string;
let origin: LoopbackOrigin;
let service: StartedService;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audio-cover-"));
  await makeCoverArtFixtures(dir);
  origin = await startLoopbackOrigin([dir]);
  service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${origin.port}` } });
}, 240_000);

afterAll(async () => {
  await service?.stop(); // SIGTERM: start.mjs stops wrangler and the runner with it
  await origin?.close();
  await rm(dir, { recursive: true, force: true });
});

// open-graph-scraper validates URLs with a TLD by default: the loopback service has none, so only that check is relaxed.
const ogsOptions = { urlValidatorSettings: { protocols: ["http", "https"], require_tld: false, require_protocol: false, require_host: true, require_valid_protocol: true, allow_underscores: false, allow_trailing_dot: false, allow_protocol_relative_urls: false, allow_fragments: true, allow_query_components: true, validate_length: true, disallow_auth: false, require_port: false } };

interface Inspected { data: { preview?: { thumbnail?: { url: string; dimensions: string } | null } } }

/** The record once every stage finished (`full` waits for the runner). */
async function inspectFull(url: string): Promise<Inspected> {
  const res = await fetch(`${service.base}/api/v1/inspect?profile=full&url=${encodeURIComponent(url)}`);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body) as Inspected;
}

describe("audio share pages with an image", () => {
  for (const name of ["cover.mp3", "cover.flac"]) {
    it(`${name}: og:image, twitter:image and oEmbed thumbnail_url are the cover's thumbnail, which answers an image`, async () => {
      const media = `${origin.url}/files/${name}`;
      const thumbnail = (await inspectFull(media)).data.preview?.thumbnail;
      // The 400x300 cover fitted into the default 320 px thumbnail box.
      expect(thumbnail?.dimensions).toBe("320x240");
      const imageUrl = new URL(thumbnail!.url, service.base).href;
      const page = await ogs({ url: `${service.base}/v/${shareIdOf(media)}`, ...ogsOptions });
      expect(page.error).toBe(false);
      expect(page.result).toMatchObject({ success: true, ogType: "music.song", ogAudio: media });
      expect(page.result.ogImage?.[0]).toMatchObject({ url: imageUrl, width: "320", height: "240" });
      expect(page.result.twitterImage?.[0]?.url).toBe(imageUrl);
      const image = await fetch(imageUrl);
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toBe("image/webp");
      const bytes = Buffer.from(await image.arrayBuffer());
      expect([bytes.subarray(0, 4).toString("latin1"), bytes.subarray(8, 12).toString("latin1")]).toEqual(["RIFF", "WEBP"]);
      const oembed = (await (await fetch(`${service.base}/oembed?url=${encodeURIComponent(media)}&format=json`)).json()) as Record<string, unknown>;
      expect(oembed).toMatchObject({ thumbnail_url: imageUrl, thumbnail_width: 320, thumbnail_height: 240 });
    });
  }

  it("plain.mp3 (no cover): no thumbnail, and the share page's image is the generated card", async () => {
    const media = `${origin.url}/files/plain.mp3`;
    expect((await inspectFull(media)).data.preview).not.toHaveProperty("thumbnail");
    const id = shareIdOf(media);
    const page = await ogs({ url: `${service.base}/v/${id}`, ...ogsOptions });
    expect(page.error).toBe(false);
    expect(page.result.ogImage?.[0]?.url).toBe(`${service.base}/v/${id}/card.png`);
    const card = await fetch(`${service.base}/v/${id}/card.png`);
    expect(card.status).toBe(200);
    expect(card.headers.get("content-type")).toBe("image/png");
  });
});
