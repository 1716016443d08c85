import { z } from "zod";
import { errors } from "../errors/api-error.ts";

// DNS over HTTPS (JSON API, as served by Cloudflare and Google): the Worker cannot hook DNS at connect time,
// so it resolves hostnames itself and checks every address before any connection to the target is made.
const DnsJsonAnswer = z.object({
  Status: z.number(),
  Answer: z.array(z.object({ type: z.number(), data: z.string(), TTL: z.number().optional() })).optional(),
});

const recordTypes = { A: 1, AAAA: 28 } as const;

/** Returns every A and AAAA address of `hostname`. An empty list means the name does not resolve. */
export async function resolveHost(resolverUrl: string, hostname: string, signal: AbortSignal): Promise<string[]> {
  const lookups = (Object.keys(recordTypes) as (keyof typeof recordTypes)[]).map(async (type) => {
    const url = new URL(resolverUrl);
    url.searchParams.set("name", hostname);
    url.searchParams.set("type", type);
    let response: Response;
    try {
      // The resolver is operator configuration, not user input, so it is the one request not SSRF-checked.
      response = await fetch(url, { headers: { accept: "application/dns-json" }, signal });
    } catch (err) {
      if (signal.aborted) throw err;
      throw errors.badGateway("DNS resolution failed.", String(err), { reason: "dns" });
    }
    if (!response.ok) throw errors.badGateway("DNS resolution failed.", `resolver answered ${response.status}`, { reason: "dns" });
    const parsed = DnsJsonAnswer.safeParse(await response.json().catch(() => null));
    if (!parsed.success) throw errors.badGateway("DNS resolution failed.", "resolver sent an invalid answer", { reason: "dns" });
    return (parsed.data.Answer ?? []).filter((a) => a.type === recordTypes[type]).map((a) => a.data);
  });
  const results = await Promise.all(lookups);
  return results.flat();
}
