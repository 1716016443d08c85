/**
 * Runs `fn` over `items` with at most `total` calls at once and at most `perKey` sharing a key (the origin),
 * results in input order. A batch of URLs on one origin is then fetched politely (the origin limiter's spirit),
 * while URLs on other origins proceed. Quadratic in the item count, which is at most maxBatchUrls.
 */
export function mapWithLimits<T, R>(
  items: readonly T[],
  keyOf: (item: T) => string,
  perKey: number,
  total: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  if (items.length === 0) return Promise.resolve(results);
  const active = new Map<string, number>();
  const waiting = items.map((_, i) => i);
  let running = 0;
  let finished = 0;
  return new Promise<R[]>((resolve, reject) => {
    const pump = () => {
      for (let k = 0; k < waiting.length && running < total;) {
        const index = waiting[k]!;
        const key = keyOf(items[index]!);
        if ((active.get(key) ?? 0) >= perKey) {
          k++;
          continue;
        }
        waiting.splice(k, 1);
        running++;
        active.set(key, (active.get(key) ?? 0) + 1);
        fn(items[index]!, index)
          .then((result) => {
            results[index] = result;
          }, reject)
          .finally(() => {
            running--;
            active.set(key, active.get(key)! - 1);
            if (++finished === items.length) resolve(results);
            else pump();
          });
      }
    };
    pump();
  });
}
