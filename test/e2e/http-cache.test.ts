// Inspect answers kept by a standard HTTP cache nobody here wrote: undici's cache interceptor, in front of the
// real `npm start` with a short record life. A record's whole life goes in max-age and what it has used in Age
// (RFC 9111 4.2.3); max-age = what is left together with Age counted the age twice, and a cache dropped the answer.
import { Agent, interceptors, request, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSamples, startService, type StartedService } from "../../testkit/start-service.ts";

/** A short record life, so the record is old by the time the cache first sees it. */
const recordTtlSeconds = 10;
/** How old the record is when the cache's first request reaches the service (more than half its life). */
const recordAgeAtFirstFetchMs = 6_000;

let service: StartedService;
let samples: Awaited<ReturnType<typeof startSamples>>;

beforeAll(async () => {
  samples = await startSamples();
  service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${samples.port}`, RECORD_TTL_SECONDS: String(recordTtlSeconds) } });
}, 240_000);

afterAll(async () => {
  await service?.stop("SIGKILL");
  await samples?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A dispatcher whose cache sits outside a counter: the counter sees only what the cache sends on to the service. */
function cachingClient() {
  let forwarded = 0;
  const counter: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
    forwarded++;
    return dispatch(options, handler);
  };
  const agent = new Agent();
  return { dispatcher: agent.compose(counter, interceptors.cache()), forwarded: () => forwarded, close: () => agent.close() };
}

describe("undici's cache interceptor keeps inspect answers", () => {
  it(`a ${recordTtlSeconds} s record first fetched ${recordAgeAtFirstFetchMs / 1000} s into its life: three requests, one sent to the service`, async () => {
    const target = `${samples.url}/image.png?cache=${Date.now()}`;
    const path = `/api/v1/inspect?profile=full&url=${encodeURIComponent(target)}`;
    // Another client makes the record; the cache meets it only later, already old.
    const made = await fetch(`${service.base}${path}`);
    expect(made.status, await made.text()).toBe(200);
    await sleep(recordAgeAtFirstFetchMs);

    const client = cachingClient();
    try {
      const seen: { status: number; cacheControl: string; age: string }[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await request(`${service.base}${path}`, { dispatcher: client.dispatcher });
        await res.body.text();
        seen.push({ status: res.statusCode, cacheControl: String(res.headers["cache-control"]), age: String(res.headers.age) });
        await sleep(500);
      }
      console.log(`undici cache: ${seen.length} requests, ${client.forwarded()} sent to the service; first answer ${seen[0]!.cacheControl}, Age ${seen[0]!.age}`);
      expect(seen.map((s) => s.status)).toEqual([200, 200, 200]);
      // The whole life, with the age beside it: what a cache subtracts.
      expect(seen[0]!.cacheControl).toBe(`public, max-age=${recordTtlSeconds}, stale-while-revalidate=60`);
      expect(Number(seen[0]!.age)).toBeGreaterThanOrEqual(recordAgeAtFirstFetchMs / 1000 - 1);
      expect(client.forwarded()).toBe(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
