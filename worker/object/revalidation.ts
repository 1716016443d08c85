/**
 * A caller's `maxAge` met by the resource object (freshness on request): one revalidation shared by every caller
 * that asks while it runs, a conditional request where the record has validators, a full re-probe where it has
 * none or the file changed; and no background work (runner jobs, edge previews) started for `fast` and `embed`
 * callers on a record a revalidation re-probed: those profiles show none of it, so a flood of `maxAge=0 fast`
 * requests costs the origin one small request per second at most and the runner nothing.
 *
 * How often: ages are whole seconds, as HTTP's Age (RFC 9111 5.2.1.1: a request's max-age=0 accepts a response of
 * age 0), so a record confirmed within the current second satisfies `maxAge=0`: at most one revalidation per URL
 * per second for `maxAge=0`, one per maxAge window for larger values, however many callers ask.
 */
import type { Profile } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import type { Config } from "../config/config.ts";
import { previewRevision } from "../previews/preview-store.ts";
import { checkOrigin } from "../stages/freshness.ts";
import type { InspectCall, Revalidation as RevalidationNote } from "./resource-rpc.ts";

export interface Revalidated {
  record: ResourceRecord;
  responseSource: "fresh" | "cache";
  revalidation: RevalidationNote;
}

/** What the object lends a revalidation: its settings, its record's storage and its (single-flight) probe. */
export interface RevalidationHost {
  config(): Config;
  /** The record stands (the origin confirmed it): saved with its life started again. */
  keep(record: ResourceRecord): void;
  /**
   * The file changed, or cannot be checked: the record goes and the URL is probed anew (joining a probe under way);
   * the new probe's record passes through noteReprobed first.
   */
  reprobe(stored: ResourceRecord, call: InspectCall): Promise<ResourceRecord>;
}

export class RevalidationFlight {
  private running?: Promise<Revalidated>;
  /** The revision of the last record a revalidation re-probed (in memory: an evicted object forgets it). */
  private reprobedRevision?: string;

  constructor(private readonly host: RevalidationHost) {}

  /** The revalidation under way, or a new one: every caller asking meanwhile shares its answer. */
  join(stored: ResourceRecord, call: InspectCall): Promise<Revalidated> {
    this.running ??= this.run(stored, call).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Whether a caller of `profile` starts background work (runner jobs, edge previews) on `record`: always, except
   * `fast` and `embed` on a record a revalidation re-probed (a `standard` or `full` caller starts it when asked).
   */
  startsBackgroundWork(record: ResourceRecord, profile: Profile): boolean {
    if (profile !== "fast" && profile !== "embed") return true;
    return this.reprobedRevision === undefined || this.reprobedRevision !== previewRevision(record);
  }

  private async run(stored: ResourceRecord, call: InspectCall): Promise<Revalidated> {
    const { unchanged, upstreamStatus } = await checkOrigin(stored, this.host.config());
    const revalidation = upstreamStatus !== undefined ? { upstreamStatus } : {};
    if (unchanged) {
      this.host.keep(stored);
      return { record: stored, responseSource: "cache", revalidation };
    }
    const record = await this.host.reprobe(stored, call);
    return { record, responseSource: "fresh", revalidation };
  }

  /**
   * The host calls this as its re-probe's result arrives, before anyone waiting on that probe resumes (callers
   * that found no record and joined the probe directly must see it too).
   */
  noteReprobed(record: ResourceRecord): ResourceRecord {
    this.reprobedRevision = previewRevision(record);
    return record;
  }
}
