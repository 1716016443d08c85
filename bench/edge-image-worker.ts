// Bench-only Worker: runs the edge image pipeline on the POSTed bytes and reports its step timings and
// photon's wasm memory size (a high-water mark: wasm memory never shrinks). Driven by
// bench/edge-image-pipeline.mjs through Miniflare; never deployed.
import { initPhoton } from "@cf-wasm/photon/workerd";
import { defaultMaxDecodePixels, defaultThumbnailMaxPx, processImageAtEdge } from "../worker/image/index.ts";

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const bytes = new Uint8Array(await request.arrayBuffer());
    const maxDecodePixels = Number(url.searchParams.get("maxDecodePixels") ?? defaultMaxDecodePixels);
    const outcome = await processImageAtEdge(bytes, request.headers.get("content-type") ?? "", {
      thumbnailMaxPx: defaultThumbnailMaxPx,
      maxDecodePixels,
    });
    const exports = (await initPhoton.promise) as { memory: WebAssembly.Memory };
    const wasmMemoryBytes = exports.memory.buffer.byteLength;
    const facts = { wasmMemoryBytes, defaultMaxDecodePixels };
    if (!outcome.ok) return Response.json({ ok: false, reason: outcome.reason, detail: outcome.detail, ...facts });
    const { thumbnail, ...rest } = outcome.result;
    return Response.json({
      ok: true,
      timingsMs: outcome.timingsMs,
      ...facts,
      result: { ...rest, thumbnail: { width: thumbnail.width, height: thumbnail.height, bytes: thumbnail.bytes.length } },
    });
  },
};
