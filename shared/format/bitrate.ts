import { formatSi, type SiUnit } from "./si-prefix.ts";

const bitrateUnits: readonly SiUnit[] = [
  { factor: 1e9, unit: "Gbps" },
  { factor: 1e6, unit: "Mbps" },
  { factor: 1e3, unit: "kbps" },
];

/** Bits per second with decimal prefixes, as bitrates are quoted: 4_200_000 -> "4.2 Mbps", 128_000 -> "128 kbps". */
export function formatBitrate(bps: number): string {
  return formatSi(bps, bitrateUnits, "bps", "bitrate");
}
