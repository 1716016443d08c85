/** A ratio in lowest terms, as ffprobe prints sample aspect ratios (Euclid: logarithmic steps). */
export function reduced(num: number, den: number): { num: number; den: number } {
  let a = num;
  let b = den;
  while (b > 0) [a, b] = [b, a % b];
  return { num: num / a, den: den / a };
}
