// Issue 20 rows 6 and 7: every walk over untrusted nested data is depth-bounded (JSON-LD in pages, the XML of
// DASH MPDs), and a page whose og:video names another page answers at once instead of waiting out `full`.
// Pages and MPDs come from testkit/depth-fixtures.ts, served by the loopback origin as /media/depth/<name>.
import { describe, expect, it } from "vitest";
import { readJsonLd } from "../../../worker/page/json-ld.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

const depth = (name: string) => media(`depth/${name}`);

/** An inspection and its wall time. */
async function timedInspect(url: string, query: string) {
  const started = Date.now();
  const reply = await inspect(url, query);
  return { ...reply, ms: Date.now() - started };
}

describe("JSON-LD nested 20,000 deep", () => {
  it("array and object nesting: 200 with each page's own title, nothing read from past the bound", async () => {
    // The old reader recursed once per list level where it looks for text: headline [[[...["inner"]...]]] became
    // the title. Objects were already walked at most maxJsonLdDepth deep; the second page guards that bound.
    for (const [file, title] of [["jsonld-array.html", "Deep array page"], ["jsonld-object.html", "Deep object page"]]) {
      const { status, body } = await inspect(depth(file!), "profile=fast&fields=page");
      expect(status).toBe(200);
      expect(body.data.page).toEqual({ title });
    }
  });

  it("a 505 KiB head of the deepest JSON-LD the reader keeps: 200 within a second", async () => {
    const { status, body, ms } = await timedInspect(depth("jsonld-512k.html"), "profile=fast&fields=page");
    console.log(`depth: 505 KiB JSON-LD head answered in ${ms} ms`);
    expect(status).toBe(200);
    expect(body.data.page.title).toBe("Worst head page");
    expect(ms).toBeLessThan(1_000);
  });

  it("the reader itself (in workerd): 512 KiB of [[[[ and of {\"a\": in bounded time, no throw", () => {
    const half = 256 * 1024;
    const inputs = [
      "[".repeat(half) + "]".repeat(half),
      '{"a":'.repeat(half / 3) + "1" + "}".repeat(half / 3),
      `{"@type":"Article","headline":${"[".repeat(half - 40)}"t"${"]".repeat(half - 40)}}`,
      "[".repeat(2 * half), // never closed: a parse error, skipped
    ];
    for (const input of inputs) {
      const started = performance.now();
      // Nothing is read from past the depth bound, and a broken block is skipped.
      expect(readJsonLd([input])).toEqual({ media: [] });
      const ms = performance.now() - started;
      console.log(`depth: readJsonLd of ${input.slice(0, 12)}... (${input.length} chars) in ${ms.toFixed(0)} ms`);
      // JSON.parse of 512 KiB is most of it (its failure on 512 KiB of unclosed `[` took 1.4 s on a loaded
      // 2-core machine); the bound only separates "bounded" from a hang, so it is generous.
      expect(ms).toBeLessThan(3_000);
    }
    // What is readable within the bound is still read.
    expect(readJsonLd([`{"@type":"Article","headline":[["Shallow"]],"author":[{"name":"Ada"}]}`])).toMatchObject({ title: "Shallow", author: "Ada" });
  });
});

describe("DASH MPD nested deep", () => {
  it.each([
    ["20,000 nested elements beside a valid Period", "deep.mpd"],
    ["512 KiB of start tags never closed", "unclosed.mpd"],
  ])("%s: a stage failure naming the nesting, never 500, within a second", async (_name, file) => {
    const { status, body, ms } = await timedInspect(depth(file), "profile=fast&debug=true");
    console.log(`depth: ${file} answered in ${ms} ms`);
    expect(status).toBe(200);
    expect(body.processing.failedStages).toContain("metadata:video");
    const error = body.debug.stageErrors.find((e: { stage: string }) => e.stage === "metadata:video");
    expect(error.reason).toMatch(/nest/);
    expect(ms).toBeLessThan(1_000);
  });
});

describe("a page whose og:video names another page", () => {
  it("full and standard answer within 2 s, page:media failed with the reason, nothing pending", async () => {
    for (const [profile, page] of [["full", "outer-full.html"], ["standard", "outer-standard.html"]] as const) {
      const { status, body, ms } = await timedInspect(depth(page), `profile=${profile}&debug=true`);
      console.log(`depth: ${page} (${profile}) answered in ${ms} ms`);
      expect(status).toBe(200);
      // The origin answers these pages from memory on loopback: its own time is a few ms.
      expect(ms).toBeLessThan(2_000);
      expect(body.processing).toMatchObject({ status: "complete", pendingStages: [], failedStages: ["page:media"] });
      expect(body.debug.stageErrors).toEqual([{ stage: "page:media", reason: expect.stringMatching(/web page/) }]);
    }
  });
});
