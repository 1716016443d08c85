import { detectProvider } from "../../shared/providers/index.ts";
import { project } from "../../shared/projection/index.ts";
import type { EmbedResponse, InspectBody, InspectQuery, InspectResponse } from "../../shared/schemas/inspect.ts";
import type { ResourceRecord } from "../../shared/schemas/record.ts";
import { apiErrorFrom, errors } from "../errors/api-error.ts";
import type { InspectCall, InspectReply, Revalidation } from "../object/resource-rpc.ts";
import { tooOldFor } from "../stages/freshness.ts";
import { getConfig, type Config } from "../config/config.ts";
import { fetchPolicy, toApiError } from "../fetch/index.ts";
import { assertPublicTarget } from "../fetch/address-guard.ts";
import { normalizeUrl, parseTargetUrl, resourceKey } from "../record/target-url.ts";
import { cachedAnswer, dropCachedRecord, storeError, storeRecord } from "./edge-cache.ts";
import { isComplete } from "../record/stage-state.ts";
import { optInNames, optInStages } from "../../shared/stages/index.ts";
import { callResource } from "../object/resource-rpc.ts";
import { sha256Hex } from "../encoding/sha256.ts";

/** 202 carries the inspect shape with its job to poll, as the routes declare; embed answers are always 200. */
export type InspectOutcome = InspectOutcomeCommon & ({ status: 200; body: InspectResponse | EmbedResponse } | { status: 202; body: InspectResponse });

interface InspectOutcomeCommon {
  /** The record answered from (for the request log and Server-Timing), and where the answer came from. */
  record: ResourceRecord;
  responseSource: "fresh" | "cache" | "inflight";
  /** Present when the caller can poll a job still running. */
  pendingJobId?: string;
  /** The record was older than the caller's maxAge and was revalidated with the origin. */
  revalidation?: Revalidation;
}

/** Who asked: the request's X-Request-Id, and the client's address when the request names one. */
export interface InspectCaller {
  requestId?: string;
  clientAddress?: string;
}

/**
 * The caller as the media runner sees it (RunnerRequest.client): a hash of the address, so the runner can share
 * its slots and CPU per caller without ever holding the address. Made only when the object is called: a cached
 * answer never pays for it.
 */
async function runnerClientKey(address: string): Promise<string> {
  // The first 12 bytes of the digest (24 hex characters).
  return (await sha256Hex(`runner-client:${address}`)).slice(0, 24);
}

/**
 * One inspection: validate, route to the resource's Durable Object, project for the caller. `baseUrl` is the
 * service's public origin, used for its own URLs inside HTML; the caller's `requestId` follows the work it starts
 * into the object's, the queue's and the runner's log lines, and its `client` key into the runner's shares.
 */
export async function inspectUrl(env: Env, body: InspectBody, query: InspectQuery, baseUrl?: string, caller: InspectCaller = {}): Promise<InspectOutcome> {
  const { requestId, clientAddress } = caller;
  if (query.expand?.includes("rawHeaders") && !query.debug) {
    throw errors.invalidParameter("expand=rawHeaders requires debug=true.");
  }
  if (query.expand?.includes("html") && query.profile !== "embed") {
    throw errors.invalidParameter("expand=html applies to profile=embed; use expand=embedHtml with other profiles.");
  }
  const url = parseTargetUrl(body.url);
  if (body.webhookUrl !== undefined) await checkWebhookTarget(body.webhookUrl, getConfig(env));
  const match = detectProvider(url);
  // Provider URLs share one resource per media (canonical URL); timestamps live in the per-request embed URL.
  const normalizedUrl = match ? match.canonicalUrl : normalizeUrl(url);
  const key = await resourceKey(normalizedUrl);
  // A complete record answers from the edge cache; a webhook needs the object (it creates the job). An origin
  // error the object remembers answers from there too, webhook or not: the object would refuse the job alike.
  const hit = await cachedAnswer(key);
  if (hit?.error) throw apiErrorFrom(hit.error);
  // An opt-in stage (expand=storyboard, waveform) the cached record does not register yet: the object registers it.
  const optIn = (query.expand ?? []).filter((name) => optInNames.includes(name));
  const unregistered = hit?.record ? optInStages(hit.record.category, optIn).some((stage) => hit.record!.stages[stage] === undefined) : false;
  // A record older than the caller's maxAge is the object's to revalidate: the edge never answers it.
  if (hit?.record && body.webhookUrl === undefined && !unregistered && !tooOldFor(hit.record, query.maxAge)) {
    const view = projectFor(hit.record, body, query, match, "cache", baseUrl);
    return { status: 200, body: view.body, record: view.record, responseSource: "cache" };
  }
  const call: InspectCall = {
    key,
    // The stored record keeps the normalised URL (no fragment, no tracking parameters); the caller's own
    // URL stays with the caller's job only.
    url: normalizeUrl(url),
    callerUrl: body.url.trim(),
    normalizedUrl,
    profile: query.profile,
    ...(match ? { provider: match } : {}),
    ...(body.webhookUrl ? { webhookUrl: body.webhookUrl } : {}),
    ...(requestId ? { requestId } : {}),
    ...(clientAddress ? { client: await runnerClientKey(clientAddress) } : {}),
    ...(optIn.length > 0 ? { optIn } : {}),
    ...(query.maxAge !== undefined ? { maxAge: query.maxAge } : {}),
  };
  const reply = await callResource<InspectReply>(env, normalizedUrl, (stub) => stub.inspect(call));
  if (!reply.ok) {
    // A first failure stays in this isolate; only a URL callers retry is worth a shared Cache API write.
    if (reply.rememberedUntil !== undefined) await storeError(key, { ...reply.error, expiresAt: reply.rememberedUntil }, reply.repeated === true);
    throw apiErrorFrom(reply.error);
  }
  // The cached record predates the opt-in stage just registered: callers without expand must not be answered
  // "complete" from it while the stage runs.
  if (unregistered) await dropCachedRecord(key);
  // A provider whose oEmbed failed is asked again by the object after ERROR_TTL_SECONDS: not edge-cached.
  const cacheable = isComplete(reply.record) && reply.record.stages.oembed?.state !== "failed";
  await storeRecord(key, reply.record, cacheable);
  const { record, body: projected } = projectFor(reply.record, body, query, match, reply.responseSource, baseUrl);
  const pending = reply.job?.status === "processing";
  const common = { record, responseSource: reply.responseSource, ...(reply.revalidation ? { revalidation: reply.revalidation } : {}) };
  if (!reply.job || !("processing" in projected)) return { ...common, status: 200, body: projected };
  projected.job = reply.job;
  if (!pending) return { ...common, status: 200, body: projected };
  projected.message =
    "The initial inspection is complete; heavy enrichments continue in the background. Poll GET /api/v1/job/{id} or wait for the webhook.";
  return query.profile === "fast"
    ? { ...common, status: 200, body: projected }
    : { ...common, status: 202, body: projected, pendingJobId: reply.job.id };
}

/** The caller's view of a record: its own URL as given (identity.url) and its own projection. */
function projectFor(
  stored: ResourceRecord,
  body: InspectBody,
  query: InspectQuery,
  match: ReturnType<typeof detectProvider>,
  responseSource: "fresh" | "cache" | "inflight",
  baseUrl: string | undefined,
) {
  // finalUrl and canonicalUrl carry the normalised forms.
  const record: ResourceRecord = { ...stored, url: body.url.trim() };
  if (match && record.provider) record.provider = { ...record.provider, embedUrl: match.embedUrl };
  const projected = project(record, {
    profile: query.profile,
    ...(query.fields ? { fields: query.fields } : {}),
    ...(query.expand ? { expand: query.expand } : {}),
    debug: query.debug,
    responseSource,
    ...(baseUrl ? { baseUrl } : {}),
  });
  return { record, body: projected };
}

/** A webhook target is checked like any outbound request, at request time: a denied address is refused now. */
async function checkWebhookTarget(raw: string, config: Config): Promise<void> {
  const url = parseTargetUrl(raw, "webhookUrl");
  if (!config.WEBHOOK_SECRET) {
    throw errors.invalidPayload("webhookUrl cannot be used: this deployment has no WEBHOOK_SECRET configured.");
  }
  const policy = fetchPolicy(config);
  try {
    await assertPublicTarget(url, policy.allowlist, policy.resolverUrl, policy.deadline.signal);
  } catch (err) {
    throw toApiError(err, policy.deadline.signal, policy.deadline.timeoutMs);
  }
}
