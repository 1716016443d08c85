/**
 * Fixed-window rate checks shared by the inspect routes (per client) and webhook delivery (per target host).
 * On Cloudflare a Rate Limiting binding decides (INSPECT_RATE_LIMITER, WEBHOOK_RATE_LIMITER, declared in
 * wrangler.toml; miniflare provides them in `wrangler dev` and tests); where a binding is missing
 * (self-hosted workerd) a fixed-window counter in the isolate stands in.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  periodSeconds: number;
  /** Seconds until the window resets (an upper bound when the platform binding decided). */
  resetSeconds: number;
  /** Requests left in the window, when known. */
  remaining?: number;
}

interface Limiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The isolate-local stand-in: fixed windows per key, bounded in size so keys cannot exhaust memory. */
class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly maxKeys = 10_000) {}

  hit(key: string, limit: number, periodMs: number, now: number): { count: number; resetMs: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= periodMs) {
      if (this.windows.size >= this.maxKeys) this.evict(now, periodMs);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetMs: w.start + periodMs - now };
  }

  private evict(now: number, periodMs: number) {
    for (const [key, w] of this.windows) if (now - w.start >= periodMs) this.windows.delete(key);
    // Still full: drop the oldest entries (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}

const localCounters = new Map<string, WindowCounter>();

export async function checkRate(
  binding: Limiter | undefined,
  scope: string,
  key: string,
  limit: number,
  periodSeconds: number,
  now = Date.now(),
): Promise<RateDecision> {
  if (binding) {
    const { success } = await binding.limit({ key: `${scope}:${key}` });
    return { allowed: success, limit, periodSeconds, resetSeconds: periodSeconds, ...(success ? {} : { remaining: 0 }) };
  }
  let counter = localCounters.get(scope);
  if (!counter) localCounters.set(scope, (counter = new WindowCounter()));
  const { count, resetMs } = counter.hit(key, limit, periodSeconds * 1000, now);
  return { allowed: count <= limit, limit, periodSeconds, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)), remaining: Math.max(0, limit - count) };
}

export function bindingOf(env: unknown, name: string): Limiter | undefined {
  const value = (env as Record<string, unknown>)[name];
  return value && typeof (value as Limiter).limit === "function" ? (value as Limiter) : undefined;
}
