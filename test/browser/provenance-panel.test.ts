import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The playground's "Provenance and rights" panel in Chromium, over the real `npm start`: a C2PA-signed image from the
// C2PA SDK's own tests and a camera JPEG exiftool tagged.

describe("playground: Provenance and rights", () => {
  // The project's service and the tagged pictures' origin (test/browser/global-setup.ts).
  const shared = inject("fixturesService");
  const origin = { url: shared.provenanceOrigin };
  const service = { base: shared.base };
  let context: BrowserContext;
  let page: Page;
  let profileDir: string;

  beforeAll(async () => {
    profileDir = mkdtempSync(join(tmpdir(), "provenance-chromium-"));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${service.base}/`);
    await page.waitForSelector("#app[data-ready]");
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  async function show(file: string): Promise<string> {
    await page.fill("#url", `${origin.url}/media/${file}?run=${Date.now()}`);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#app[data-state=done]", { timeout: 90_000 });
    await page.waitForSelector("#provenance");
    return (await page.textContent("#provenance")) ?? "";
  }

  it("shows the C2PA badge, signer and actions of a signed image", async () => {
    const text = await show("C.jpg");
    expect(await page.textContent("#c2pa-badge")).toMatch(/Content Credentials: (valid|trusted)/);
    expect(text).toContain("C2PA Test Signing Cert");
    expect(text).toContain("c2pa.created");
    expect(text).toContain("Not declared");
  });

  it("shows creator, licence link and the location with a map link", async () => {
    const text = await show("tagged-camera.jpg");
    expect(text).toContain("Jane Doe");
    expect(await page.getAttribute("#provenance a[href^='https://creativecommons.org']", "href")).toBe("https://creativecommons.org/licenses/by/4.0/");
    const map = await page.getAttribute("#provenance a[href^='https://www.openstreetmap.org']", "href");
    expect(map).toContain("mlat=-33.865143");
    expect(await page.textContent("#c2pa-badge")).toBe("No Content Credentials (C2PA)");
  });
});
