// Files and manifests made by other teams, inspected through the real API (testkit/made-by-others.ts says where
// they come from; the set-up fails, never skips, when a package stops shipping them):
// 1. Every vhs-utils media file (~750, named by its RFC 6381 codecs string) in `fast`: category right, no 5xx,
//    and the codecs entries in `playback.codecs` agreeing with the name's for each track, where the name's entry
//    is derivable from the bytes (see `agrees`). A sample also in `full`, and ffprobe's codec names on a few.
// 2. HLS and DASH manifests from m3u8-parser and mpd-parser, checked against the parsers' own expected parses.
//    Their segments do not exist on the origin: the service answers from the manifest.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { codecsOf } from "../../shared/media/codec-string.ts";
import { namedCodecs, othersProbed } from "../../testkit/made-by-others.ts";
import { inspect, media } from "../../testkit/worker/helpers.ts";

const others = inject("others");
/** Inspections in flight at once (the service and the origin share two busy cores with the rest of the machine). */
const concurrency = 8;
/** Files also inspected in `full` (the runner's ffprobe): one per container, so the run stays about a minute. */
const fullSampleEvery = 40;

const videoCodecs = /^(avc1|avc3|hev1|hvc1|av01|vp8|vp9|vp09|theora|mp4v)\b/;
const containerOf = (file: string) => file.split("/")[1]!;

interface Outcome { file: string; status: number; category?: string; codecs: string[]; body: any }

async function inspected(file: string, profile: "fast" | "full"): Promise<Outcome> {
  const { status, body } = await inspect(media(`others/vhs/${file}`), `profile=${profile}`);
  const playback = body?.data?.playback?.codecs as string | undefined;
  return { file, status, category: body?.data?.semantic?.semanticType, codecs: playback ? codecsOf(playback) : [], body };
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

const mediaFiles = others.files.filter((f) => f.startsWith("formats/"));
const classes = [...new Set(mediaFiles.map(containerOf))].sort();

describe("vhs-utils media files, named by their codecs, in fast", { timeout: 120_000 }, () => {
  const fast = new Map<string, Outcome>();
  beforeAll(async () => {
    const results = await mapLimit(others.files, concurrency, (f) => inspected(f, "fast"));
    for (const r of results) fast.set(r.file, r);
    const lines = classes.map((c) => {
      const of = mediaFiles.filter((f) => containerOf(f) === c).map((f) => fast.get(f)!);
      return `${c}: ${of.filter((o) => codecAgreement(o).ok).length}/${of.length}`;
    });
    console.log(`[made-by-others] fast codec agreement by container: ${lines.join(", ")}`);
    for (const o of results) {
      const a = o.file.startsWith("formats/") ? codecAgreement(o) : { ok: true };
      if (!a.ok || o.status !== 200) console.log(`[made-by-others] ${o.file}: ${o.status} ${o.category} ${a.why ?? ""} ${o.status !== 200 ? JSON.stringify(o.body).slice(0, 300) : ""}`);
    }
  }, 600_000);

  it("every file answers without a 5xx, in the right category", () => {
    for (const file of others.files) {
      const o = fast.get(file)!;
      expect(o.status, `${file}: ${JSON.stringify(o.body).slice(0, 400)}`).toBeLessThan(500);
      expect(o.status, file).toBe(200);
      const named = file.startsWith("formats/") ? namedCodecs(file) : ["avc1"];
      expect(o.category, file).toBe(named.some((c) => videoCodecs.test(c)) ? "video" : "audio");
    }
  });

  it.each(classes)("%s: the codecs entries agree with the file names", (container) => {
    const disagree = mediaFiles.filter((f) => containerOf(f) === container)
      .map((f) => ({ file: f, ...codecAgreement(fast.get(f)!) })).filter((a) => !a.ok);
    expect(disagree.map((d) => `${d.file}: ${d.why}`)).toEqual([]);
  });
});
