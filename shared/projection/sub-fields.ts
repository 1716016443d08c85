import type { InspectData } from "../schemas/inspect-data.ts";

/**
 * `fields=metadata.capture` keeps only that part of `metadata` (and nothing else of it); naming the whole
 * namespace keeps all of it. Called after the namespace filter with the caller's `fields`.
 */
export function keepSubFields(data: InspectData, wanted: ReadonlySet<string>): void {
  const parts = [...wanted].filter((f) => f.startsWith("metadata.")).map((f) => f.slice("metadata.".length));
  if (parts.length === 0 || wanted.has("metadata")) return;
  const metadata = data.metadata as Record<string, unknown> | undefined;
  data.metadata = Object.fromEntries(parts.filter((p) => metadata?.[p] !== undefined).map((p) => [p, metadata![p]])) as InspectData["metadata"];
}
