import type { ProbeResult, ProviderRecord, ResourceRecord } from "../../shared/schemas/record.ts";
import type { MediaCategory } from "../../shared/schemas/stages.ts";
import { initialStages } from "./stage-state.ts";

export interface NewRecordInput {
  key: string;
  url: string;
  normalizedUrl: string;
  category: MediaCategory;
  probe: ProbeResult;
  provider?: ProviderRecord;
  ttlSeconds: number;
  now: number;
}

/** A record with every stage of the category registered as pending. */
export function createRecord(input: NewRecordInput): ResourceRecord {
  return {
    key: input.key,
    url: input.url,
    normalizedUrl: input.normalizedUrl,
    category: input.category,
    probe: input.probe,
    ...(input.provider ? { provider: input.provider } : {}),
    stages: initialStages(input.category),
    results: {},
    timings: {},
    createdAt: input.now,
    updatedAt: input.now,
    expiresAt: input.now + input.ttlSeconds * 1000,
  };
}
