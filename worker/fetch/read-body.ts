import { errors } from "../errors/api-error.ts";
import { toApiError } from "./fetch-error.ts";
import type { Deadline } from "./deadline.ts";
import { concatBytes } from "../../shared/bytes/concat-bytes.ts";
import { budgetOf } from "./origin-budget.ts";

/**
 * Reads at most `wantBytes` from the body and cancels the rest: the probe never downloads more than it asked
 * for, even from an origin that ignores Range. Returns the bytes read.
 */
export async function readHead(response: Response, wantBytes: number, deadline: Deadline): Promise<Uint8Array> {
  return readBody(response, wantBytes, deadline, "truncate");
}

/** Reads the whole body, refusing with 413 as soon as the streamed bytes pass `maxBytes` (Content-Length can lie). */
export async function readCapped(response: Response, maxBytes: number, deadline: Deadline): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw errors.tooLarge(maxBytes);
  }
  return readBody(response, maxBytes, deadline, "refuse");
}

async function readBody(response: Response, limit: number, deadline: Deadline, overflow: "truncate" | "refuse"): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const budget = budgetOf(response);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit || overflow === "refuse") {
      const { done, value } = await reader.read();
      if (done) break;
      budget?.spendBytes(value.byteLength);
      if (total + value.byteLength > limit) {
        if (overflow === "refuse") throw errors.tooLarge(limit);
        chunks.push(value.subarray(0, limit - total));
        total = limit;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } catch (err) {
    throw toApiError(err, deadline.signal, deadline.timeoutMs);
  } finally {
    reader.cancel().catch(() => {});
  }
  return concatBytes(chunks);
}
