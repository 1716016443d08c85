import type { Profile } from "../../shared/schemas/inspect.ts";
import { ApiError } from "../errors/api-error.ts";
import { inspectUrl, type InspectCaller, type InspectOutcome } from "../service/inspect-service.ts";
import { isComplete } from "../record/stage-state.ts";
import { defaultVideoSize, sharedMediaOf, type SharedMedia, type Size } from "./oembed-media.ts";

/**
 * The inspection behind /oembed and /v: the same `inspectUrl` as /api/v1/inspect (same cache, same record, same
 * errors: SSRF_BLOCKED, RESOURCE_NOT_FOUND, ...).
 *
 * A standard answer of 202 is used as it is: the media's size is known at the edge (the moov, the image header,
 * the manifest) and only the previews wait for the runner, so the document is complete but for the thumbnail,
 * and it says so with a short cache_age. Unfurlers give up after a few seconds; waiting like `full` (up to
 * FULL_WAIT_TIMEOUT_MS) would lose the embed. Only when a size oEmbed requires is still unknown does this wait
 * like `full`, which joins the job already running.
 */

/** cache_age (and HTTP max-age 0, no-store) of a document made before every stage finished: ask again soon. */
export const pendingCacheAgeSeconds = 60;

export interface SharedInspection {
  media: SharedMedia & { size: Size };
  /** Seconds a consumer may keep what was made from this record. */
  cacheAge: number;
  complete: boolean;
  outcome: InspectOutcome;
}

export async function inspectForSharing(env: Env, url: string, baseUrl: string, caller: InspectCaller = {}): Promise<SharedInspection> {
  let outcome = await inspectAs(env, url, "standard", baseUrl, caller);
  let media = sharedMediaOf(outcome.record, baseUrl);
  if (media && !media.size && outcome.status === 202) {
    outcome = await inspectAs(env, url, "full", baseUrl, caller);
    media = sharedMediaOf(outcome.record, baseUrl);
  }
  if (!media) throw notMedia(outcome.record.category);
  const size = media.size ?? (media.kind === "photo" ? undefined : defaultVideoSize);
  if (!size) throw new ApiError(404, "NOT_FOUND", "No oEmbed document for this URL: the image's size could not be read.");
  const complete = outcome.status === 200 && isComplete(outcome.record);
  const cacheAge = complete ? Math.max(0, Math.floor((outcome.record.expiresAt - Date.now()) / 1000)) : pendingCacheAgeSeconds;
  return { media: { ...media, size }, cacheAge, complete, outcome };
}

function inspectAs(env: Env, url: string, profile: Profile, baseUrl: string, caller: InspectCaller) {
  return inspectUrl(env, { url }, { profile, fields: undefined, expand: undefined, debug: false, maxAge: undefined }, baseUrl, caller);
}

/** oEmbed 2.3.5: 404 when the provider has no response for the URL (here: it is not video, audio or an image). */
function notMedia(category: string): ApiError {
  const what = category === "webpage" ? "a web page" : category === "embedded" ? "a provider page that refuses embedding" : `${category} content`;
  return new ApiError(404, "NOT_FOUND", `No oEmbed document for this URL: it is ${what}, not video, audio or an image.`);
}
