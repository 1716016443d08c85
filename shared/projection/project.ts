import type { EmbedResponse, ExpandName, InspectResponse, Profile } from "../schemas/inspect.ts";
import type { FieldName, InspectData } from "../schemas/inspect-data.ts";
import type { ResourceRecord } from "../schemas/record.ts";
import { buildFullData } from "./build-data.ts";
import { deriveProcessing, stageErrors } from "./processing.ts";
import { withoutEmptyObjects } from "./sanitize.ts";
import { projectEmbed } from "./project-embed.ts";
import { keepSubFields } from "./sub-fields.ts";

export interface ProjectionOptions {
  profile: Profile;
  fields?: FieldName[];
  expand?: ExpandName[];
  debug?: boolean;
  responseSource: "fresh" | "cache" | "inflight";
  /** Origin the service's own URLs are resolved against inside HTML (`playback.html`, embed `render`). */
  baseUrl?: string;
}

/**
 * The one pure function from a resource record to an API answer. Processing state is computed
 * from the record before any projection, so it is identical for every profile, `fields` and `expand`.
 */
export function project(record: ResourceRecord, options: ProjectionOptions): InspectResponse | EmbedResponse {
  if (options.profile === "embed") return projectEmbed(record, options.expand?.includes("html") ?? false, options.baseUrl);
  const processing = deriveProcessing(record);
  const expand = new Set(options.expand ?? []);
  const full = buildFullData(record, options.baseUrl);
  const data: InspectData = { ...full, playback: full.playback ? { ...full.playback } : undefined };
  const hiddenFields: string[] = [];

  if (!(expand.has("rawHeaders") && options.debug)) delete data.network;
  if (options.profile !== "full") delete data.diagnostics;
  if (options.profile === "fast") {
    delete data.providerData;
    if (!expand.has("embedHtml") && data.playback) delete data.playback.html;
    if (record.provider) {
      // Provider-native preview is kept in fast and is not a hidden field.
      if (data.preview?.thumbnail === null) delete data.preview;
    } else if (data.preview && Object.values(data.preview).some((v) => v !== undefined)) {
      // Only a preview that exists can be hidden: a web page has none, so its hiddenFields stays [].
      delete data.preview;
      hiddenFields.push("preview");
    }
  }
  if (options.fields) {
    const wanted = new Set<string>(options.fields);
    for (const key of Object.keys(data) as (keyof InspectData)[]) {
      const namespace = key === "providerData" ? "provider" : key;
      if (key !== "network" && !wanted.has(namespace) && !options.fields.some((f) => f.startsWith(`${namespace}.`))) delete data[key];
    }
    keepSubFields(data, wanted);
  }
  const complete = processing.status === "complete";
  const response: InspectResponse = {
    success: true,
    responseSource: options.responseSource,
    cached: options.responseSource === "cache",
    processing,
    data: withoutEmptyObjects(data),
    ...(complete ? { enrichmentSources: enrichmentSources(record) } : {}),
    projection: { profile: options.profile, hiddenFields },
  };
  const errors = options.debug ? stageErrors(record) : [];
  if (errors.length > 0) response.debug = { stageErrors: errors };
  return response;
}

/** Provenance: every finished stage's source. Fixed once written, so it is the same on every read. */
function enrichmentSources(record: ResourceRecord): Record<string, "fresh"> {
  const out: Record<string, "fresh"> = {};
  for (const [stage, entry] of Object.entries(record.stages)) {
    if (entry?.state === "done") out[stage] = "fresh";
  }
  return out;
}
