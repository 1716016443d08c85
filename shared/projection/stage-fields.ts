import type { ResourceRecord } from "../schemas/record.ts";
import type { MediaCategory } from "../schemas/stages.ts";
import { stageRegistry } from "../stages/index.ts";
import { stageView } from "./processing.ts";

/**
 * The fields the registry's stages fill under one namespace (`metadata`, `preview`), from each declaration's
 * `fills` and `show`: null while the stage is pending, its value once done, omitted when it failed,
 * showed nothing, or is not registered; a reserved opt-in field is null until asked for. A path one level
 * deeper (`audio.loudness`) is added to the object its parent stage shows. Adding a stage adds its fields here
 * with no edit.
 */
export function stageFields(record: ResourceRecord, namespace: "metadata" | "preview"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const nested: { parent: string; child: string; value: unknown }[] = [];
  for (const stage of stageRegistry) {
    if (!stage.show) continue;
    const keys = stage.fills.filter((path) => path.startsWith(`${namespace}.`)).map((path) => path.slice(namespace.length + 1));
    if (keys.length === 0) continue;
    const view = stageView(record, stage.name);
    const reserved = view === "unregistered" && stage.reservedUntilAsked === true
      && (stage.categories as readonly MediaCategory[]).includes(record.category);
    const values = view === "done" ? stage.show(record.results) : {};
    for (const key of keys) {
      const dot = key.indexOf(".");
      if (dot >= 0) {
        if (values[key] !== undefined) nested.push({ parent: key.slice(0, dot), child: key.slice(dot + 1), value: values[key] });
      } else if (view === "pending" || reserved) {
        out[key] = null;
      } else if (values[key] !== undefined) {
        out[key] = values[key];
      }
    }
  }
  for (const { parent, child, value } of nested) {
    const holder = out[parent];
    if (holder && typeof holder === "object") out[parent] = { ...holder, [child]: value };
  }
  return out;
}
