/**
 * One inspection's origin budget at the edge (shared/limits.ts): every origin request the Worker makes for
 * the inspection (every hop of the probe, Range reads, the page head, oEmbed discovery, playlists, the edge
 * image download) and every body byte it reads count against it; the runner gets what is left. The record's
 * transfer tally is the ledger between steps (it is stored, so a later step or a re-created object starts
 * from what was really spent), see `budgetAfter`.
 */
import { fullInspectionBudget, originBudgetSpentMessage, type OriginBudgetAmounts } from "../../shared/limits.ts";
import type { Transfer } from "../../shared/schemas/record.ts";
import { ApiError } from "../errors/api-error.ts";

export class OriginBudget {
  /** Origin requests made (every hop), of them redirect hops, and body bytes read, in this budget's lifetime. */
  readonly used = { requests: 0, redirects: 0, bytes: 0 };

  /** `spent`: what earlier steps of the same inspection already used. */
  constructor(private readonly spent: OriginBudgetAmounts = { requests: 0, bytes: 0 }) {}

  /** Refuses (throws) instead of letting one more request out. */
  spendRequest(redirect = false): void {
    if (this.spent.requests + this.used.requests >= fullInspectionBudget.requests) throw budgetSpent("requests");
    this.used.requests += 1;
    if (redirect) this.used.redirects += 1;
  }

  /** Counts bytes read; throws once the inspection's total passes the byte budget. */
  spendBytes(count: number): void {
    this.used.bytes += count;
    if (this.spent.bytes + this.used.bytes > fullInspectionBudget.bytes) throw budgetSpent("bytes");
  }

  /** What is left for later steps (the runner's share). */
  remaining(): OriginBudgetAmounts {
    return {
      requests: Math.max(0, fullInspectionBudget.requests - this.spent.requests - this.used.requests),
      bytes: Math.max(0, fullInspectionBudget.bytes - this.spent.bytes - this.used.bytes),
    };
  }

  /** This budget's use in the record's tally form (requests there exclude redirect hops). */
  transfer(): Transfer {
    return { requests: this.used.requests - this.used.redirects, redirects: this.used.redirects, bytes: this.used.bytes };
  }
}

/** The budget left after what the record's tally says the inspection already spent (edge and runner). */
export function budgetAfter(transfer: Transfer | undefined): OriginBudget {
  return new OriginBudget({ requests: (transfer?.requests ?? 0) + (transfer?.redirects ?? 0), bytes: transfer?.bytes ?? 0 });
}

/**
 * 413 (a 4xx, never a 5xx): the content asks for more origin work than one inspection may do. Where it ends a
 * stage (a nested playlist, the runner) the stage fails with this reason.
 */
function budgetSpent(kind: keyof OriginBudgetAmounts): ApiError {
  const reason = originBudgetSpentMessage(kind);
  return new ApiError(413, "PAYLOAD_TOO_LARGE", reason.charAt(0).toUpperCase() + reason.slice(1) + ".");
}

/** Responses whose body bytes count against a budget: the readers (read-body.ts, the page head's GET) charge them. */
const metered = new WeakMap<Response, OriginBudget>();

/**
 * Marks `response` as read under `budget`. Its readers count the bytes as they take them (a wrapping stream
 * would be simpler, but piping the pinned socket's body through one lost workerd's connection on cancel).
 */
export function meter(response: Response, budget: OriginBudget): Response {
  metered.set(response, budget);
  return response;
}

/** The budget `response`'s body bytes count against, if any. */
export function budgetOf(response: Response): OriginBudget | undefined {
  return metered.get(response);
}
