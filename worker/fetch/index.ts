export { safeFetch, type FetchPolicy, type SafeResponse } from "./safe-fetch.ts";
export { toApiError } from "./fetch-error.ts";
export { readHead, readCapped } from "./read-body.ts";
export { createDeadline, type Deadline } from "./deadline.ts";
export { fetchPolicy } from "./policy.ts";
export { OriginBudget, budgetAfter, budgetOf } from "./origin-budget.ts";
