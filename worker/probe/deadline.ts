/**
 * A parser's promise, or a rejection naming the parser once `ms` pass. It bounds asynchronous parsers
 * (wasm readers, chunked reads); synchronous work is bounded by the size of its input instead.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, parser: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${parser}: gave up after ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
