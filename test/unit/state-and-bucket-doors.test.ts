/**
 * Two doors dependency-cruiser cannot see (they are property accesses, not imports): only a Durable Object's
 * shell file touches its state (storage, SQL handle, alarms), and only the previews door touches the thumbnails
 * bucket binding. Every other module is handed what it needs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [relative(root, path)] : [];
  });
}

const files = sources(join(root, "worker")).map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));
const using = (pattern: RegExp) => files.filter((f) => pattern.test(f.text)).map((f) => f.path).sort();

/** The Durable Object API on an object's own state: its storage (SQL, KV, alarms) and its input gate. */
const objectState = /\bctx\.storage\b|\.storage\.(sql|get|put|delete|list|setAlarm|getAlarm|deleteAlarm|transaction)\b|\bblockConcurrencyWhile\b|\bextends DurableObject\b/;
const shells = ["worker/idempotency/idempotency-object.ts", "worker/object/resource-object.ts"];

describe("state and bucket doors", () => {
  it("only the Durable Object shells touch an object's state", () => {
    expect(using(objectState)).toEqual(shells);
  });
  it("only the previews door touches the thumbnails bucket binding", () => {
    expect(using(/\bTHUMBNAILS\b/)).toEqual(["worker/previews/preview-store.ts"]);
  });
});
