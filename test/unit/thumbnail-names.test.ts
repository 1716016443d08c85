// Stored preview names (issue 25 item 2): every name carries the record's revision, so a changed file gets new
// URLs for its year-long-cached previews; the routes accept that form and the one written before revisions.
import { describe, expect, it } from "vitest";
import {
  objectKeyForFile, previewRevision, storyboardSpriteKey, storyboardVttKey, thumbnailObjectKey, thumbnailPath, vttKeyForFile,
} from "../../worker/previews/preview-keys.ts";

const key = "ab".repeat(32);
const probe = (headers: Record<string, string>, sizeBytes = 100) => ({
  finalUrl: "https://media.example/a.png", status: 206, mime: "image/png", sizeBytes, streamable: true, bytesFetched: 100, redirects: 0, headers,
});

describe("preview revisions", () => {
  it("the same validators give the same revision; another ETag, size or Last-Modified another", () => {
    const one = previewRevision({ probe: probe({ etag: '"v1"' }), createdAt: 1 });
    expect(one).toMatch(/^[0-9a-f]{16}$/);
    expect(previewRevision({ probe: probe({ etag: '"v1"' }), createdAt: 2 })).toBe(one);
    // Evidence may revise the MIME type during the record's life: its previews keep their revision.
    expect(previewRevision({ probe: { ...probe({ etag: '"v1"' }), mime: "video/mp4" }, createdAt: 1 })).toBe(one);
    expect(previewRevision({ probe: probe({ etag: '"v2"' }), createdAt: 1 })).not.toBe(one);
    expect(previewRevision({ probe: probe({ etag: '"v1"' }, 101), createdAt: 1 })).not.toBe(one);
    expect(previewRevision({ probe: probe({ "last-modified": "Thu, 01 Jan 2026 00:00:00 GMT" }), createdAt: 1 }))
      .not.toBe(previewRevision({ probe: probe({ "last-modified": "Fri, 02 Jan 2026 00:00:00 GMT" }), createdAt: 1 }));
  });

  it("without validators every inspection is a revision of its own", () => {
    expect(previewRevision({ probe: probe({}), createdAt: 1 })).not.toBe(previewRevision({ probe: probe({}), createdAt: 2 }));
  });
});

describe("stored file names", () => {
  const rev = "0123456789abcdef";
  it("the names written round-trip through the routes' parsers", () => {
    for (const objectKey of [thumbnailObjectKey(key, rev, 320, 180), storyboardSpriteKey(key, rev, 160, 90)]) {
      expect(objectKeyForFile(thumbnailPath(objectKey).split("/").pop()!)).toBe(objectKey);
    }
    const vtt = storyboardVttKey(key, rev, 160, 90);
    expect(vttKeyForFile(vtt.slice("storyboards/".length))).toBe(vtt);
  });

  it("names from before revisions are still served", () => {
    expect(objectKeyForFile(`${key}-320x180.webp`)).toBe(`thumbnails/${key}-320x180.webp`);
    expect(objectKeyForFile(`${key}-storyboard-160x90.webp`)).toBe(`thumbnails/${key}-storyboard-160x90.webp`);
    expect(vttKeyForFile(`${key}-160x90.vtt`)).toBe(`storyboards/${key}-160x90.vtt`);
  });

  it.each([
    `${key}-${rev}-320x180.png`, `${key}-${rev}-x180.webp`, `${key}-${rev}-320x.webp`, `${key}-${rev}-123456x1.webp`,
    `${key}-${rev.toUpperCase()}-320x180.webp`, `${key}-${rev.slice(1)}-320x180.webp`, `${key}-${rev}-${rev}-320x180.webp`,
    `${key.slice(2)}-${rev}-320x180.webp`, `${key}-${rev}-storyboard-storyboard-1x1.webp`, `../${key}-${rev}-1x1.webp`,
    `${key}-${rev}-320x180.webp`.padEnd(121, "a"), `${key}--320x180.webp`, `${key}-${rev}-32x18x1.webp`,
  ])("%s is refused", (file) => {
    expect(objectKeyForFile(file)).toBeUndefined();
  });

  it("a storyboard track has no storyboard- part", () => {
    expect(vttKeyForFile(`${key}-${rev}-storyboard-160x90.vtt`)).toBeUndefined();
  });
});
