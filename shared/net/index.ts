export { parseAllowlist, isAllowlisted, describeAllowlist, emptyAllowlist } from "./allowlist.ts";
export type { Allowlist, AllowlistEntry } from "./allowlist.ts";
export { checkIpAddress, classifyUrlHost, effectivePort } from "./address-policy.ts";
export type { AddressDecision, HostClassification } from "./address-policy.ts";
