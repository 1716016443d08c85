/** A unit and how many base units it holds, largest first. */
export type SiUnit = { readonly factor: number; readonly unit: string };

/**
 * Writes value in the largest unit it reaches, one decimal under 10 ("4.2"), whole numbers above ("320"),
 * a trailing ".0" dropped. Rounding that reaches 1000 moves up a unit (999_960 bps is "1 Mbps", not "1000 kbps").
 */
export function formatSi(value: number, units: readonly SiUnit[], baseUnit: string, what: string): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite, non-negative number, got ${value}`);
  const ladder = [...units, { factor: 1, unit: baseUnit }];
  for (let i = 0; i < ladder.length; i++) {
    const { factor, unit } = ladder[i]!;
    if (value < factor && i < ladder.length - 1) continue;
    const text = digits(value / factor, i === ladder.length - 1);
    const bigger = ladder[i - 1];
    if (Number(text) >= 1000 && bigger) return `${digits(value / bigger.factor, false)} ${bigger.unit}`;
    return `${text} ${unit}`;
  }
  return `0 ${baseUnit}`;
}

function digits(value: number, whole: boolean): string {
  const text = value < 10 && !whole ? value.toFixed(1) : value.toFixed(0);
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}
