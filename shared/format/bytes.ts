import { formatSi, type SiUnit } from "./si-prefix.ts";

const byteUnits: readonly SiUnit[] = [
  { factor: 1e12, unit: "TB" },
  { factor: 1e9, unit: "GB" },
  { factor: 1e6, unit: "MB" },
  { factor: 1e3, unit: "kB" },
];

/**
 * A byte count with decimal prefixes, matching how the service states its limits ("50 MB" is
 * 50_000_000 bytes): 1_500_000 -> "1.5 MB", 999 -> "999 B".
 */
export function formatBytes(bytes: number): string {
  return formatSi(bytes, byteUnits, "B", "byte count");
}
