// Issue 23: the edge names each class's type and category from its bytes in fast and full (JPEG 2000, netpbm,
// PSD, TGA, DDS, lossless JPEG, HEIC, a 16000x9000 WebP, a truncated JPEG, SVG behind an XML prolog, audio-only
// MPEG-TS/PS). Thumbnails per class are checked at the runner (test/runner/image-formats.test.ts).
// Files: testkit/image-format-fixtures.ts, made at set-up by ffmpeg and heif-enc.
import { describe, expect, it } from "vitest";
import { formatFixtures } from "../../../testkit/image-format-fixtures.ts";
import { inspect, media } from "../../../testkit/worker/helpers.ts";

describe.each(["fast", "full"])("profile=%s", (profile) => {
  it.each(formatFixtures)("$file is $category ($mime)", async (fx) => {
    const { status, body } = await inspect(media(fx.file), `profile=${profile}`);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.semantic.semanticType).toBe(fx.category);
    expect(body.data.identity.mime).toBe(fx.mime);
  });
});
