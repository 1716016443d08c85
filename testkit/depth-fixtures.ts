import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Deeply nested untrusted documents (rows 6 and 7), served as /media/depth/<name>: JSON-LD nested
 * 20,000 deep in a page, a 512 KiB head of the worst JSON-LD the head reader keeps, MPDs nested deep enough to
 * hurt an XML parser, and pages whose og:video names another page that itself names media. Text only, written
 * on every setup (cheap), so nothing large is committed.
 */

/** The attacker's figure: 20,000 levels, 40 KB of brackets. */
export const depthLevels = 20_000;

const deepArray = (levels: number, inner = "") => "[".repeat(levels) + inner + "]".repeat(levels);
const deepObject = (levels: number, inner = "1") => '{"a":'.repeat(levels) + inner + "}".repeat(levels);
const ldScript = (json: string) => `<script type="application/ld+json">${json}</script>`;
const page = (title: string, head: string) => `<!doctype html><html><head><title>${title}</title>${head}</head><body>body</body></html>`;

/**
 * The head reader hands at most 64 KiB of one <script> to the JSON-LD reader (html-scan's maxTextBytes; a longer
 * block is cut, so fails to parse and is dropped): the deepest JSON that reaches the reader fits in that.
 */
const keptBlockChars = 63 * 1024;

export const depthFixtures: Record<string, string> = {
  // The attacker's page: 20,000 levels of array (40 KB) where the reader looks for text, and a bare one.
  "jsonld-array.html": page("Deep array page",
    ldScript(`{"@context":"https://schema.org","@type":"Article","headline":${deepArray(depthLevels, '"inner"')}}`)
    + ldScript(deepArray(depthLevels))),
  // Object nesting: 10,000 levels (60 KB, kept and parsed) in the fields the reader follows and as a graph
  // member; 20,000 levels (120 KB) is past the 64 KiB a block may have, so is cut and dropped.
  "jsonld-object.html": page("Deep object page",
    ldScript(`{"@type":"Article","author":${deepObject(depthLevels / 2)}}`)
    + ldScript(`{"@type":"Article","image":${deepObject(depthLevels / 2)}}`)
    + ldScript(`{"@graph":[${deepObject(depthLevels / 2)}]}`)
    + ldScript(`{"@type":"Article","author":${deepObject(depthLevels)}}`)),
  // Eight blocks (the most kept) of 63 KiB of nesting each, 505 KiB of head: the most JSON-LD nesting one page
  // can hand the reader.
  "jsonld-512k.html": page("Worst head page",
    Array.from({ length: 8 }, () => ldScript(`{"@type":"Article","name":${deepArray((keptBlockChars - 40) / 2, '"x"')}}`)).join("")),
  // og:video names another page, which names real media: no page-to-page chains, and no waiting for one.
  "outer-full.html": page("Outer full", `<meta property="og:video" content="inner-full.html">`),
  "inner-full.html": page("Inner full", `<meta property="og:video" content="/media/video.mp4">`),
  "outer-standard.html": page("Outer standard", `<meta property="og:video" content="inner-standard.html">`),
  "inner-standard.html": page("Inner standard", `<meta property="og:video" content="/media/video.mp4">`),
  // MPDs: elements nested 20,000 deep beside a valid Period, and 512 KiB of start tags never closed.
  "deep.mpd": `<?xml version="1.0"?><MPD type="static" mediaPresentationDuration="PT6S">${"<a>".repeat(depthLevels)}${"</a>".repeat(depthLevels)}`
    + `<Period><AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="1000" width="64" height="64">`
    + `<SegmentTemplate media="s$Number$.m4s" duration="2" startNumber="1"/></Representation></AdaptationSet></Period></MPD>`,
  "unclosed.mpd": `<?xml version="1.0"?><MPD type="static">${"<a>".repeat(Math.floor((512 * 1024) / 3))}`,
};

export function ensureDepthFixtures(mediaDir: string): void {
  const dir = join(mediaDir, "depth");
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(depthFixtures)) writeFileSync(join(dir, name), text);
}
