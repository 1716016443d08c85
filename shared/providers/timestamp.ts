/** Longest start offset we carry into an embed URL; longer values are treated as garbage. */
export const maxStartSeconds = 7 * 24 * 60 * 60;

const unitsPattern = /^(?:(\d{1,3})h)?(?:(\d{1,4})m)?(?:(\d{1,6})s?)?$/i;
const clockPattern = /^(?:(\d{1,3}):)?(\d{1,2}):(\d{2})$/;

/**
 * Parses the start-time notations providers put in share links: `90`, `90s`, `1m30s`, `1h2m3s`, `1:30`,
 * `1:02:03`. Returns whole seconds, or undefined for zero, unparseable or implausibly large values
 * (a start of 0 is the same as no start).
 */
export function parseTimestamp(raw: string | null | undefined): number | undefined {
  if (!raw) return undefined;
  const value = raw.trim();
  let seconds: number | undefined;
  const clock = clockPattern.exec(value);
  if (clock) {
    seconds = Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  } else {
    const units = unitsPattern.exec(value);
    // A bare "s" or "" matches the all-optional pattern; require at least one number.
    if (!units || (units[1] ?? units[2] ?? units[3]) === undefined) return undefined;
    seconds = Number(units[1] ?? 0) * 3600 + Number(units[2] ?? 0) * 60 + Number(units[3] ?? 0);
  }
  return seconds > 0 && seconds <= maxStartSeconds ? seconds : undefined;
}

/** `5025` -> `1h23m45s`, the notation Twitch's player takes in `time=` and Vimeo in `#t=`. */
export function formatHms(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s}s`;
}

/** Reads `t=` from a `#t=...` fragment (Vimeo, old YouTube links). */
export function fragmentParam(url: URL, name: string): string | null {
  return new URLSearchParams(url.hash.replace(/^#/, "")).get(name);
}
