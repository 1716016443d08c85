// CORS as a browser enforces it: Debian's Chromium (driven by playwright-core) loads a page from one loopback
// port and calls the API, started by the real `npm start`, on another. The same page calling a server without
// CORS headers fails, so a pass here is the browser's verdict, not the test's.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSamples, startService, type StartedService } from "../../testkit/start-service.ts";

const chromiumFlags = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

let service: StartedService;
let samples: Awaited<ReturnType<typeof startSamples>>;
let pageServer: Server;
let pageOrigin: string;
let browser: Browser;

beforeAll(async () => {
  samples = await startSamples();
  service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${samples.port}` } });
  pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>link preview</title><p>a page on another origin</p>");
  });
  await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumFlags });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  pageServer?.closeAllConnections();
  await new Promise((r) => pageServer?.close(r));
  await service?.stop();
  await samples?.stop();
});

/** Runs fetch() in the page (origin pageOrigin) and reports what the page's script could see. */
async function fetchFromPage(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) {
  const page = await browser.newPage();
  try {
    await page.goto(`${pageOrigin}/`);
    return await page.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, init);
          const headers: Record<string, string | null> = {};
          for (const name of ["x-request-id", "server-timing", "location", "retry-after", "etag", "content-type"]) headers[name] = response.headers.get(name);
          const text = await response.text();
          return { ok: true as const, status: response.status, headers, text };
        } catch (error) {
          return { ok: false as const, error: String(error) };
        }
      },
      { url, init },
    );
  } finally {
    await page.close();
  }
}

describe("CORS from a real browser (page and API on different loopback ports)", () => {
  it("a JSON POST (which needs a preflight) succeeds and the page can read the exposed headers", async () => {
    const result = await fetchFromPage(service.urls.api + "?profile=fast", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "browser-cors-1" },
      body: JSON.stringify({ url: `${samples.url}/image.png` }),
    });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text).data.metadata.image.hasAlpha).toBe(true);
    expect(result.headers["x-request-id"]).toBe("browser-cors-1");
    expect(result.headers["server-timing"]).toMatch(/total;dur=/);
    // The preflight reached the service and was answered there (it is logged as such).
    expect(service.jsonLines().some((l) => l.method === "OPTIONS" && l.route === "preflight" && l.status === 204)).toBe(true);
  });

  it("a GET with the URL in the query is a simple request: answered with no preflight, headers readable", async () => {
    const preflights = () => service.jsonLines().filter((l) => l.method === "OPTIONS").length;
    const before = preflights();
    const result = await fetchFromPage(`${service.urls.api}?profile=fast&url=${encodeURIComponent(`${samples.url}/audio.mp3`)}`, { method: "GET" });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text).data.metadata.audio.codec).toBe("mp3");
    const id = result.headers["x-request-id"]!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // The GET's own log line is written after any preflight for it would have been.
    await service.waitForLine(new RegExp(`"requestId":"${id}"`));
    expect(service.jsonLines().find((l) => l.requestId === id)).toMatchObject({ method: "GET", route: "/api/v1/inspect", status: 200 });
    expect(preflights()).toBe(before);
  });

  it("an error answer is readable by the page too (415 with its envelope)", async () => {
    const result = await fetchFromPage(service.urls.api, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ url: `${samples.url}/image.png` }),
    });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.status).toBe(415);
    expect(JSON.parse(result.text).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(result.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("control: the same page calling a server without CORS headers is blocked by the browser", async () => {
    const result = await fetchFromPage(`${samples.url}/image.png`, { method: "GET", headers: { "x-request-id": "x" } });
    expect(result.ok).toBe(false);
  });
});
