/** Removes `undefined` values and empty objects, recursively (`{}` is never returned). */
export function withoutEmptyObjects<T>(value: T): T {
  return prune(value) as T;
}

function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    const pruned = prune(inner);
    if (pruned !== null && typeof pruned === "object" && !Array.isArray(pruned) && Object.keys(pruned).length === 0) continue;
    out[key] = pruned;
  }
  return out;
}
