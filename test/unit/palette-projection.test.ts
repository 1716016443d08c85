import { describe, expect, it } from "vitest";
import { project } from "../../shared/projection/index.ts";
import { InspectResponse } from "../../shared/schemas/inspect.ts";
import { buildRecord } from "./fixtures/records.ts";

// The palette and the diagnostics the playground draws (stage chips with reasons, timing bars, bytes pulled),
// as the API projects them from a record. Every answer is validated against the published schema.
const full = (record: ReturnType<typeof buildRecord>, profile: "full" | "standard" = "full") =>
  InspectResponse.parse(project(record, { profile, responseSource: "fresh" }));

const colors = [{ hex: "#3a7bd5", share: 0.61 }, { hex: "#f0e6d2", share: 0.3 }, { hex: "#202020", share: 0.09 }];

describe("palette and diagnostics projection", () => {
  it("preview.palette keeps dominant and gains colors", () => {
    const record = buildRecord("image", "done", { results: { dominantColor: "#3a7bd5", palette: colors } });
    const { data } = full(record, "standard");
    expect(data.preview?.palette).toEqual({ dominant: "#3a7bd5", colors });
    expect(data.preview?.palette?.colors?.[0]?.hex).toBe(data.preview?.palette?.dominant);
    expect(data.preview?.dominantColor).toBe("#3a7bd5");
  });

  it("a record stored before palettes existed still answers with dominant alone", () => {
    const { data } = full(buildRecord("image", "done"), "standard");
    expect(data.preview?.palette).toEqual({ dominant: "#3a7bd5" });
  });

  it("the schema refuses more than 6 colours or a share outside 0-1", () => {
    const seven = Array.from({ length: 7 }, (_, i) => ({ hex: `#00000${i}`, share: 0.1 }));
    const body = full(buildRecord("image", "done", { results: { palette: colors } }), "standard");
    const withPalette = (palette: unknown) => ({ ...body, data: { ...body.data, preview: { ...body.data.preview, palette } } });
    expect(InspectResponse.safeParse(withPalette({ dominant: "#000000", colors: seven })).success).toBe(false);
    expect(InspectResponse.safeParse(withPalette({ dominant: "#000000", colors: [{ hex: "#000000", share: 1.5 }] })).success).toBe(false);
    expect(InspectResponse.safeParse(withPalette({ dominant: "#000000", colors: colors.slice(0, 1) })).success).toBe(true);
  });

  it("full diagnostics carry every stage's state, engine, time and failure reason, and bytes pulled", () => {
    const record = buildRecord("video", "failed", { results: { runnerBytesFetched: 98_765 } });
    const diagnostics = full(record).data.diagnostics!;
    const failed = Object.entries(record.stages).filter(([, s]) => s?.state === "failed").map(([name]) => name);
    expect(failed.length).toBeGreaterThan(0);
    expect(Object.keys(diagnostics.stages!).sort()).toEqual(Object.keys(record.stages).sort());
    for (const name of failed) expect(diagnostics.stages![name]).toMatchObject({ state: "failed", engine: "edge", error: "decoder gave up" });
    for (const stage of Object.values(diagnostics.stages!)) if (stage.durationMs !== undefined) expect(Number.isInteger(stage.durationMs)).toBe(true);
    expect(diagnostics.bytesFetched).toEqual({ worker: 4100, runner: 98_765 });
  });

  it("pending stages show as pending; no runner bytes before the runner ran", () => {
    const diagnostics = full(buildRecord("video", "initial")).data.diagnostics!;
    expect(diagnostics.stages!["preview:palette"]).toMatchObject({ state: "pending" });
    expect(diagnostics.stages!["preview:palette"]).not.toHaveProperty("durationMs");
    expect(diagnostics.stages!["preview:palette"]).not.toHaveProperty("error");
    expect(diagnostics.bytesFetched).toEqual({ worker: 4100 });
  });
});
