import type { Profile } from "../../shared/schemas/inspect.ts";
import type { JobResource } from "../../shared/schemas/job.ts";
import type { ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import type { PublicErrorFields } from "../errors/api-error.ts";

/** The RPC contract of a Resource object: what callers send and what it answers (errors cross as values). */


export interface InspectCall {
  key: string;
  url: string;
  normalizedUrl: string;
  provider?: ProviderRecord;
  profile: Profile;
  webhookUrl?: string;
  /** The caller's own URL, kept with its job only. */
  callerUrl?: string;
  /** Inspected because a page names it: its own page:media stage does not run (no page-to-page chains). */
  nested?: boolean;
  /** The X-Request-Id of the inspection: runner work it starts, and this object's log lines about it, carry it. */
  requestId?: string;
  /** The caller's opaque key (RunnerRequest.client): the runner shares its slots and CPU per caller. */
  client?: string;
  /** `expand` values that register opt-in stages (storyboard, waveform) on the record. */
  optIn?: string[];
  /** The caller's maxAge (seconds): an older record is revalidated with the origin first. */
  maxAge?: number;
}

/** A revalidation with the origin happened for this answer: what the origin answered (304: the record stands). */
export interface Revalidation {
  upstreamStatus?: number;
}

export type PublicError = PublicErrorFields;
export type InspectReply =
  | {
    ok: true; record: ResourceRecord; responseSource: "fresh" | "cache" | "inflight"; job?: { id: string; status: "processing" | "complete" };
    revalidation?: Revalidation;
  }
  // rememberedUntil: the object answers this same error until then (ERROR_TTL_SECONDS), so the edge may too;
  // repeated: it was remembered before this call (a caller is retrying), not just now.
  | { ok: false; error: PublicError; rememberedUntil?: number; repeated?: boolean };
export type JobReply = { found: false } | { found: true; job: JobResource["job"]; record?: ResourceRecord };

/**
 * The one place a Resource Durable Object is addressed. Stubs are typed by the object's class (wrangler
 * types' `DurableObjectNamespace<ResourceObject>`), so RPC replies keep their declared types with no casts:
 * every record field is RPC-serializable (no `unknown`, no recursive JSON type).
 */
export function resourceByName(env: Env, name: string) {
  return env.RESOURCE.get(env.RESOURCE.idFromName(name));
}

/**
 * Calls a Resource object through `stub`, and once more through `fresh()` when the call failed because the object was
 * reset before it answered, as Cloudflare's Durable Object error handling advises (see isObjectReset). A reset object
 * wrote nothing it had not confirmed, an inspection is single-flighted by the object and a job poll is a read, so
 * asking again is safe.
 */
export async function callOnceMoreIfReset<S, T>(stub: S, fresh: () => S, call: (stub: S) => PromiseLike<T>): Promise<T> {
  try {
    return await call(stub);
  } catch (error) {
    if (!isObjectReset(error)) throw error;
    return await call(fresh());
  }
}

/** callOnceMoreIfReset on the object named by the normalised URL. */
export async function callResource<T>(env: Env, name: string, call: (stub: ReturnType<typeof resourceByName>) => PromiseLike<T>): Promise<T> {
  const stubOf = () => resourceByName(env, name);
  return await callOnceMoreIfReset(stubOf(), stubOf, call);
}

/**
 * Whether a failed object call may be sent again to a fresh stub: the error says the object was reset
 * (`durableObjectReset`, or `retryable` without `overloaded`), or it is workerd's opaque "internal error" of a call
 * whose object broke (seen in a loaded local run when an alarm's output lock failed). Never when the object is
 * overloaded, or was reset for exceeding its CPU or memory limit: the same call would most likely do that again.
 */
export function isObjectReset(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const flags = error as Error & { durableObjectReset?: boolean; retryable?: boolean; overloaded?: boolean };
  if (flags.overloaded === true || error.message.includes("exceeded its")) return false;
  return flags.durableObjectReset === true || flags.retryable === true || error.message.startsWith("internal error; reference = ");
}

/** The object behind a job id's object part (a hex Durable Object id); throws on a malformed id. */
export function resourceById(env: Env, objectId: string) {
  return env.RESOURCE.get(env.RESOURCE.idFromString(objectId));
}

/**
 * Inspects through the object named by the normalised URL. The object itself calls this for page media (another
 * resource's object): declared outside the class, whose body cannot name its own stub's types.
 */
export async function inspectAt(env: Env, name: string, call: InspectCall): Promise<InspectReply> {
  return await callResource<InspectReply>(env, name, (stub) => stub.inspect(call));
}
