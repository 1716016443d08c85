/** Calls to the service from the page (same origin, so no CORS), each recorded for the requests panel. */

export interface Exchange {
  method: string;
  url: string;
  status: number;
  ms: number;
  headers: [string, string][];
  body: unknown;
}

export interface InspectOptions {
  profile: string;
  fields: string[];
  expand: string[];
  debug: boolean;
}

export interface ErrorBody {
  status: "error";
  error: { code: string; message: string; reason?: string; upstreamStatus?: number };
}

export function isErrorBody(body: unknown): body is ErrorBody {
  const b = body as ErrorBody | null;
  return typeof b === "object" && b !== null && b.status === "error" && typeof b.error?.code === "string";
}

export function inspectPath(options: InspectOptions): string {
  const query = new URLSearchParams({ profile: options.profile });
  if (options.fields.length > 0) query.set("fields", options.fields.join(","));
  if (options.expand.length > 0) query.set("expand", options.expand.join(","));
  if (options.debug) query.set("debug", "true");
  return `/api/v1/inspect?${query}`;
}

async function call(method: string, path: string, body?: unknown): Promise<Exchange> {
  const started = performance.now();
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: shown as text (a proxy's error page, for instance).
  }
  return { method, url: path, status: response.status, ms: Math.round(performance.now() - started), headers: [...response.headers], body: parsed };
}

export function inspect(url: string, options: InspectOptions): Promise<Exchange> {
  return call("POST", inspectPath(options), { url });
}

export function getJob(id: string): Promise<Exchange> {
  return call("GET", `/api/v1/job/${encodeURIComponent(id)}`);
}

/** A POSIX-shell single-quoted word: safe to paste whatever the URL contains. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlFor(url: string, options: InspectOptions): string {
  return [
    `curl -sS -X POST ${shellQuote(location.origin + inspectPath(options))}`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify({ url }))}`,
  ].join(" \\\n");
}
