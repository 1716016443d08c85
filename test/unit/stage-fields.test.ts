// Issue 21 item 2: the stage-filled fields of `metadata` and `preview` come from the registry's declarations
// (fills + show), not from a list in the projection: every declared path is null while its stage is pending.
import { describe, expect, it } from "vitest";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { MediaCategory, StageName } from "../../shared/schemas/stages.ts";
import { stageRegistry } from "../../shared/stages/index.ts";
import { buildFullData } from "../../shared/projection/build-data.ts";
import { createRecord } from "../../worker/record/create-record.ts";
import { registerFound, registerOptIn } from "../../worker/record/stage-state.ts";

function pendingRecordOf(category: MediaCategory, optIn: string | undefined, found?: StageName): ResourceRecord {
  const record = createRecord({
    key: "0".repeat(64), url: "https://cdn.example.com/a", normalizedUrl: "https://cdn.example.com/a", category,
    probe: { finalUrl: "https://cdn.example.com/a", status: 206, mime: "application/octet-stream", streamable: true, bytesFetched: 1, redirects: 0, headers: {} },
    ttlSeconds: 60, now: Date.now(),
  });
  if (optIn) registerOptIn(record, [optIn]);
  if (found) registerFound(record, found);
  return record;
}

/** The value at a dotted path under `data`. */
const at = (data: unknown, path: string) => path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown> | null | undefined)?.[key], data);

describe("stage fields from the registry", () => {
  const shown = stageRegistry.filter((stage) => stage.show);

  it("every stage the projection shows declares what it fills", () => {
    expect(shown.map((s) => s.name)).toEqual(expect.arrayContaining(["metadata:video", "preview:thumbnail", "preview:storyboard", "preview:waveform"]));
  });

  for (const stage of shown) {
    for (const category of stage.categories) {
      it(`${stage.name} (${category}): each top-level path it fills is null while it is pending`, () => {
        // A when-found stage (an audio file's cover art) is pending once the inspection found its input.
        const data = buildFullData(pendingRecordOf(category, stage.optIn, stage.name));
        for (const path of stage.fills.filter((p) => p.split(".").length === 2)) expect(at(data, path), path).toBeNull();
      });
    }
  }
});
