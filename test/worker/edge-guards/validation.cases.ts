// Issue 2 item 3: every bad input gets the error envelope with an exact status and code, never a crash,
// through the Worker's real HTTP handling (SELF.fetch). No request here reaches an origin.
import { SELF, env } from "cloudflare:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { createApp } from "../../../worker/http/app.ts";
import { onError } from "../../../worker/http/error-handling.ts";
import type { AppEnv } from "../../../worker/http/app-env.ts";
import { maxRequestBodyBytes } from "../../../worker/http/json-body.ts";
import { ErrorBody } from "../../../shared/schemas/error.ts";
import { namespaceNames } from "../../../shared/schemas/inspect-data.ts";
import { expandNames, profiles } from "../../../shared/schemas/inspect.ts";
import { inspect, origin } from "../../../testkit/worker/helpers.ts";

/** A stack trace leaks as "    at fn (file.ts:1:2)" frames or as source paths. */
function expectNoStack(text: string) {
  expect(text).not.toMatch(/\bat \S+ \(|\n\s+at /);
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+/);
  expect(text).not.toMatch(/node_modules|\/work\/|worker\//);
}

/** Asserts the error envelope (validated by the contract schema), its status and code; returns the message. */
async function expectError(response: Response, status: number, code: string): Promise<string> {
  const text = await response.text();
  expectNoStack(text);
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = ErrorBody.parse(JSON.parse(text));
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error.message;
}

function post(body: string, query = "", headers: Record<string, string> = { "content-type": "application/json" }) {
  return SELF.fetch(`http://service/api/v1/inspect${query ? `?${query}` : ""}`, { method: "POST", headers, body });
}

const someMedia = `${origin}/media/audio.mp3`;

describe("body validation: 400 INVALID_PAYLOAD", () => {
  it.each([
    ["malformed JSON", "{\"url\": "],
    ["JSON with a trailing comma", "{\"url\": \"https://example.com/a.mp4\",}"],
    ["an empty body", ""],
    ["a JSON array", "[\"https://example.com/a.mp4\"]"],
    ["a JSON string", "\"https://example.com/a.mp4\""],
    ["JSON null", "null"],
    ["a JSON number", "42"],
    ["an object without url", "{}"],
    ["url: null", "{\"url\": null}"],
    ["url as a number", "{\"url\": 42}"],
    ["url as an array", "{\"url\": [\"https://example.com/a.mp4\"]}"],
    ["url as an object", "{\"url\": {\"href\": \"https://example.com/a.mp4\"}}"],
    ["webhookUrl as a number", "{\"url\": \"https://example.com/a.mp4\", \"webhookUrl\": 7}"],
  ])("%s", async (_name, body) => {
    await expectError(await post(body), 400, "INVALID_PAYLOAD");
  });

  it("names a missing url", async () => {
    expect(await expectError(await post("{}"), 400, "INVALID_PAYLOAD")).toMatch(/url is required/);
  });

  it("says url must be a string", async () => {
    expect(await expectError(await post("{\"url\": 42}"), 400, "INVALID_PAYLOAD")).toMatch(/url must be a string/);
  });

  it("names an extra unknown body field and lists the allowed ones", async () => {
    const message = await expectError(await post(JSON.stringify({ url: someMedia, callback: "x" })), 400, "INVALID_PAYLOAD");
    expect(message).toContain("callback");
    expect(message).toMatch(/url/);
    expect(message).toMatch(/webhookUrl/);
  });
});

describe("content type and body size: 415 / 413 in the envelope, never 500, no stack in the log", () => {
  // Made when these cases run, not when the file is collected (see below).
  let errorLog: MockInstance<typeof console.error>;
  let infoLog: MockInstance<typeof console.log>;
  beforeAll(() => {
    errorLog = vi.spyOn(console, "error");
    infoLog = vi.spyOn(console, "log");
  });
  afterEach(() => {
    errorLog.mockClear();
    infoLog.mockClear();
  });
  afterAll(() => {
    errorLog.mockRestore();
    infoLog.mockRestore();
  });
  const loggedText = () => [...errorLog.mock.calls, ...infoLog.mock.calls].map((args) => args.map(String).join(" ")).join("\n");
  const json = JSON.stringify({ url: someMedia });

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["form-urlencoded (curl -d)", { "content-type": "application/x-www-form-urlencoded" }],
    ["multipart", { "content-type": "multipart/form-data; boundary=x" }],
    ["no content type", {} as Record<string, string>],
  ])("a JSON body sent as %s -> 415 UNSUPPORTED_MEDIA_TYPE naming application/json", async (_name, headers) => {
    const message = await expectError(await post(json, "", headers), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(message).toContain("application/json");
    expectNoStack(loggedText());
    expect(errorLog).not.toHaveBeenCalled();
  });

  it("accepts application/json with a charset parameter", async () => {
    const response = await post(JSON.stringify({ url: "ftp://example.com/a" }), "", { "content-type": "application/json; charset=utf-8" });
    await expectError(response, 400, "INVALID_URL");
  });

  it("a body over the limit (declared length) -> 413 PAYLOAD_TOO_LARGE before parsing", async () => {
    const big = JSON.stringify({ url: someMedia, pad: "x".repeat(maxRequestBodyBytes) });
    const message = await expectError(await post(big), 413, "PAYLOAD_TOO_LARGE");
    expect(message).toContain(String(maxRequestBodyBytes));
  });

  it("a streamed body over the limit (no Content-Length) -> 413, even when it is not JSON at all", async () => {
    const chunk = new TextEncoder().encode("{".repeat(4096));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > maxRequestBodyBytes * 4) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await SELF.fetch("http://service/api/v1/inspect", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    await expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  it("a body at the limit is parsed (then judged on its content)", async () => {
    const padded = JSON.stringify({ url: someMedia, pad: "" });
    const exact = padded.replace('"pad":""', `"pad":"${"x".repeat(maxRequestBodyBytes - padded.length)}"`);
    expect(exact.length).toBe(maxRequestBodyBytes);
    const message = await expectError(await post(exact), 400, "INVALID_PAYLOAD");
    expect(message).toContain("pad");
  });
});

describe("URL validation: 400 INVALID_URL", () => {
  it.each([
    ["not a URL", "not a url"],
    ["a relative path", "/media/video.mp4"],
    ["a scheme-relative URL", "//example.com/video.mp4"],
    ["an empty string", ""],
    ["only spaces", "   "],
    ["http with no host", "http://"],
    ["a bad port", "http://example.com:99999/a.mp4"],
    ["a bad IPv6 literal", "http://[::1/a.mp4"],
    ["ftp:", "ftp://example.com/video.mp4"],
    ["javascript:", "javascript:alert(1)"],
    ["file:", "file:///etc/passwd"],
    ["data:", "data:text/plain,hello"],
    ["ws:", "ws://example.com/socket"],
    ["gopher:", "gopher://example.com/1"],
    ["user:password credentials", "http://user:secret@example.com/video.mp4"],
    ["user-only credentials", "https://user@example.com/video.mp4"],
    ["password-only credentials", "https://:secret@example.com/video.mp4"],
    ["a URL of 2049 characters", `https://example.com/${"a".repeat(2049 - "https://example.com/".length)}`],
  ])("%s", async (_name, url) => {
    const { status, body } = await inspect(url);
    expect({ status, code: body.error?.code }).toEqual({ status: 400, code: "INVALID_URL" });
    expectNoStack(JSON.stringify(body));
  });

  it("names the scheme it refuses", async () => {
    expect((await inspect("ftp://example.com/a.mp4")).body.error.message).toMatch(/http.*https/);
  });

  it("accepts a URL of exactly 2048 characters (validation passes; the DoH answer for example.com decides)", async () => {
    const url = `http://nx.test/${"a".repeat(2048 - "http://nx.test/".length)}`;
    expect(url).toHaveLength(2048);
    // nx.test does not resolve in the fake zone: a 502 proves the length check let it through.
    const { status, body } = await inspect(url, "profile=fast");
    expect({ status, code: body.error?.code }).toEqual({ status: 502, code: "BAD_GATEWAY" });
  });

  it("validates webhookUrl like url", async () => {
    const response = await post(JSON.stringify({ url: someMedia, webhookUrl: "ftp://hooks.example/x" }));
    expect(await expectError(response, 400, "INVALID_URL")).toMatch(/webhookUrl/);
  });
});

describe("query validation: 400 INVALID_PARAMETER listing the allowed values", () => {
  it.each(["turbo", "FAST", ""])("unknown profile %j", async (profile) => {
    const message = await expectError(await post(JSON.stringify({ url: someMedia }), `profile=${profile}`), 400, "INVALID_PARAMETER");
    for (const allowed of profiles) expect(message).toContain(allowed);
  });

  it("unknown fields name", async () => {
    const message = await expectError(await post(JSON.stringify({ url: someMedia }), "fields=identity,colour"), 400, "INVALID_PARAMETER");
    expect(message).toContain("colour");
    for (const allowed of namespaceNames) expect(message).toContain(allowed);
  });

  it("unknown expand name", async () => {
    const message = await expectError(await post(JSON.stringify({ url: someMedia }), "expand=everything"), 400, "INVALID_PARAMETER");
    expect(message).toContain("everything");
    for (const allowed of expandNames) expect(message).toContain(allowed);
  });

  it("bad debug value", async () => {
    expect(await expectError(await post(JSON.stringify({ url: someMedia }), "debug=yes"), 400, "INVALID_PARAMETER")).toMatch(/true or false/);
  });

  it.each(["expand=rawHeaders", "expand=rawHeaders&debug=false", "expand=embedHtml,rawHeaders"])(
    "%s without debug=true",
    async (query) => {
      const message = await expectError(await post(JSON.stringify({ url: someMedia }), query), 400, "INVALID_PARAMETER");
      expect(message).toContain("debug=true");
    },
  );
});

describe("routing", () => {
  it.each([
    ["GET", "/"],
    ["GET", "/api/v1/nothing"],
    ["POST", "/api/v2/inspect"],
    ["GET", "/api/v1/inspect/extra/segments"],
  ])("unknown route %s %s -> 404 JSON", async (method, path) => {
    const response = await SELF.fetch(`http://service${path}`, { method });
    expect(await expectError(response, 404, "NOT_FOUND")).toContain(path);
  });

  it.each([
    ["PATCH", "/api/v1/inspect", "GET, HEAD, POST"],
    ["PUT", "/api/v1/inspect", "GET, HEAD, POST"],
    ["DELETE", "/api/v1/inspect", "GET, HEAD, POST"],
    ["POST", "/api/v1/job/abc", "GET, HEAD"],
    ["POST", "/openapi.json", "GET, HEAD"],
  ])("wrong method %s %s -> 405 JSON with Allow", async (method, path, allow) => {
    const response = await SELF.fetch(`http://service${path}`, { method });
    expect(response.headers.get("allow")).toBe(allow);
    expect(await expectError(response, 405, "METHOD_NOT_ALLOWED")).toContain(allow);
  });

  it.each(["does-not-exist", "00000000-0000-0000-0000-000000000000", "%3Cscript%3E"])("unknown job id %s -> 404 JOB_NOT_FOUND", async (id) => {
    const response = await SELF.fetch(`http://service/api/v1/job/${id}`);
    await expectError(response, 404, "JOB_NOT_FOUND");
  });
});

describe("unexpected exceptions: 500 without internals", () => {
  // Made when these cases run, not when the file is collected: other cases in this workerd restore their mocks.
  let logged: MockInstance<typeof console.error>;
  beforeAll(() => {
    logged = vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => logged.mockClear());
  afterAll(() => logged.mockRestore());

  it("the real app answers 500 INTERNAL_ERROR when a binding is broken", async () => {
    // Nothing reachable through SELF throws outside the ApiError vocabulary, so break the environment instead:
    // the route dereferences the missing Durable Object binding and throws a TypeError.
    const app = createApp();
    const broken = { ...(env as object), RESOURCE: undefined };
    const response = await app.fetch(
      new Request("http://service/api/v1/inspect?profile=fast", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/video.mp4" }),
      }),
      broken,
    );
    const message = await expectError(response, 500, "INTERNAL_ERROR");
    expect(message).not.toMatch(/RESOURCE|undefined|TypeError/);
    expect(logged).toHaveBeenCalled();
  });

  it("onError hides the message and stack of any thrown error", async () => {
    const app = new OpenAPIHono<AppEnv>();
    app.get("/boom", () => {
      const err = new Error("secret at /work/main/worker/x.ts:12:3 password=hunter2");
      err.stack = `Error: secret\n    at handler (/work/main/worker/x.ts:12:3)\n    at dispatch (node_modules/hono/dist/compose.js:22:5)`;
      throw err;
    });
    app.onError(onError);
    const message = await expectError(await app.request("/boom"), 500, "INTERNAL_ERROR");
    expect(message).not.toMatch(/secret|hunter2/);
  });
});

describe("CORS_ORIGINS narrows the allowed origins", () => {
  const app = createApp();
  const call = (origin: string, method = "GET") =>
    app.fetch(
      new Request("http://service/api/v1/job/nope", {
        method,
        headers: { origin, ...(method === "OPTIONS" ? { "access-control-request-method": "POST" } : {}) },
      }),
      { ...(env as object), CORS_ORIGINS: "https://app.example, http://127.0.0.1:3000" },
    );

  it.each(["https://app.example", "http://127.0.0.1:3000"])("a listed origin (%s) is echoed, with Vary: Origin", async (origin) => {
    const response = await call(origin);
    expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    expect(response.headers.get("vary")).toMatch(/origin/i);
  });

  it("another origin gets no Access-Control-Allow-Origin, for requests and preflights", async () => {
    expect((await call("https://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
    expect((await call("https://evil.example", "OPTIONS")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("the default is * for any origin", async () => {
    const response = await SELF.fetch("http://service/api/v1/job/nope", { headers: { origin: "https://any.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});
