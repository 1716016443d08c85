// Encryption declared in movie fragments: pssh boxes inside a moof name the key systems of a media segment that has
// no moov. The segments are ffmpeg's fragmented output with pssh boxes added (testkit/fragment-fixtures.ts); ffmpeg
// itself decodes init + segment, so the added boxes left a well-formed fragment.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { moofProtection, withMoofProtection } from "../../worker/probe/moof-protection.ts";
import { ensureFragmentFixtures, fragmentFixtures } from "../../testkit/fragment-fixtures.ts";
import { isMediaSegment } from "../../worker/probe/fmp4-segment.ts";

const dir = join(tmpdir(), "media-inspect-fragment-fixtures");
const read = (file: string) => new Uint8Array(readFileSync(join(dir, file)));

beforeAll(() => { ensureFragmentFixtures(dir); }, 60_000);

describe("pssh boxes in a moof", () => {
  it("ffmpeg decodes the init segment followed by the segment carrying the pssh boxes", () => {
    const joined = join(dir, "joined.mp4");
    writeFileSync(joined, Buffer.concat([readFileSync(join(dir, fragmentFixtures.init)), readFileSync(join(dir, fragmentFixtures.segment))]));
    const out = execFileSync("ffmpeg", ["-v", "error", "-i", joined, "-f", "framemd5", "-"]).toString("utf8");
    expect(out.split("\n").filter((l) => /^0,/.test(l)).length).toBe(10);
  });

  it("a media segment's pssh boxes name Widevine and PlayReady", () => {
    const segment = read(fragmentFixtures.segment);
    expect(isMediaSegment(segment)).toBe(true);
    expect(moofProtection(segment)).toEqual({ encrypted: true, keySystems: ["com.widevine.alpha", "com.microsoft.playready"] });
    // The init segment alone: a moov, no moof, nothing from fragments.
    expect(moofProtection(read(fragmentFixtures.init))).toBeUndefined();
  });

  it("joins the fragments' key systems to the moov's, keeping the moov's scheme", () => {
    const facts = withMoofProtection({ protection: { encrypted: true, scheme: "cenc", keySystems: ["org.w3.clearkey"] } }, read(fragmentFixtures.segment));
    expect(facts?.protection).toEqual({ encrypted: true, scheme: "cenc", keySystems: ["org.w3.clearkey", "com.widevine.alpha", "com.microsoft.playready"] });
    expect(withMoofProtection(undefined, new Uint8Array(0))).toBeUndefined();
  });

  it("hostile: 100,000 pssh boxes in one moof give the two systems in one bounded pass", () => {
    const segment = read(fragmentFixtures.hostile);
    expect(segment.length).toBeGreaterThan(3_000_000);
    const started = performance.now();
    expect(moofProtection(segment)!.keySystems.sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
    // Generous: a linear pass over 3 MB takes milliseconds; a quadratic one would take minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("hostile: garbage and truncated boxes give no answer rather than an invented one", () => {
    let x = 99;
    const junk = new Uint8Array(1 << 20).map(() => { x = (x * 1103515245 + 12345) >>> 0; return x >>> 24; });
    expect(moofProtection(junk)).toBeUndefined();
    const segment = read(fragmentFixtures.segment);
    expect(() => moofProtection(segment.subarray(0, 60))).not.toThrow();
  });
});

describe("a moof cut off by the end of the bytes held", () => {
  it("names only the systems whose IDs are wholly held", () => {
    const segment = read(fragmentFixtures.hostile);
    for (const cut of [16 * 1024, 16 * 1024 + 7, 16 * 1024 + 30]) {
      expect(moofProtection(segment.subarray(0, cut))!.keySystems.sort()).toEqual(["com.microsoft.playready", "com.widevine.alpha"]);
    }
  });
});
