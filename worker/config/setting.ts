import { z } from "zod";

/**
 * Building blocks of the settings slices (one `*-config.ts` per layer, composed in config.ts): every value
 * arrives as a string from the environment, so numbers are coerced and lists split here.
 */

/** A whole, non-negative number with its default. */
export const int = (def: number) => z.coerce.number().int().nonnegative().default(def);

/** A comma-separated setting as its trimmed, non-empty entries. */
export function commaList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}
