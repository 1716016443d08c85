import { SELF, env } from "cloudflare:test";

export const origin = (env as unknown as { ORIGIN_URL: string }).ORIGIN_URL;
export const trapPort = Number((env as unknown as { TRAP_PORT: string }).TRAP_PORT);
export const garbageUrl = (env as unknown as { GARBAGE_URL: string }).GARBAGE_URL;

export async function inspect(url: unknown, query = "", init: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await SELF.fetch(`http://service/api/v1/inspect${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: init.body ?? JSON.stringify({ url }),
  });
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers };
}

/** A unique URL for one test, so cached records never leak between tests. */
export function media(file: string, params = ""): string {
  const nonce = crypto.randomUUID().slice(0, 8);
  return `${origin}/media/${file}?n=${nonce}${params ? `&${params}` : ""}`;
}

export async function originStats(): Promise<{ requests: { path: string; range?: string; bytes: number; headers: Record<string, string>; receivedAt: number }[] }> {
  return (await fetch(`${origin}/__stats`)).json();
}

export async function trapConnections(): Promise<number> {
  return ((await (await fetch(`${origin}/__extra/trap`)).json()) as { connections: number }).connections;
}
