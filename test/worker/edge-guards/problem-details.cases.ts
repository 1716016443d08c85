// RFC 9457 problem details: `instance` a URI reference naming the request, a human `title` per code (the table
// beside the codes), and `type` URIs that answer a page to a browser and JSON to an API client.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { errorCodes, errorTitles } from "../../../shared/schemas/error.ts";

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

describe("problem+json (RFC 9457)", () => {
  it("instance is urn:request:<id>, title the code's human title, type a URI of this service", async () => {
    const res = await SELF.fetch("http://service/api/v1/inspect?url=ftp%3A%2F%2Fexample.com%2Fx", {
      headers: { accept: "application/problem+json", "x-request-id": "req-9457" },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      type: "http://service/problems/invalid-url",
      title: "The URL is not a valid http(s) URL",
      status: 400,
      detail: expect.any(String),
      instance: "urn:request:req-9457",
      code: "INVALID_URL",
    });
    // A URI reference (RFC 3986): a scheme, then no space or other character a URI cannot hold.
    expect(String(body.instance)).toMatch(/^[a-z][a-z0-9+.-]*:[A-Za-z0-9\-._~:@!$&'()*+,;=/?%]+$/);
    expect(URL.canParse(String(body.instance))).toBe(true);
    // A generated id is a URN too.
    const generated = (await (await SELF.fetch("http://service/nowhere", { headers: { accept: "application/problem+json" } })).json()) as { instance: string; title: string };
    expect(generated.instance).toMatch(/^urn:request:[0-9a-f-]{36}$/);
    expect(generated.title).toBe("Nothing is here");
  });

  it("every code has a human title: a sentence, not the code lower-cased", () => {
    for (const code of errorCodes) {
      const title = errorTitles[code];
      expect(title, code).toMatch(/^[A-Z]/);
      expect(title.toLowerCase(), code).not.toBe(code.toLowerCase().replaceAll("_", " "));
    }
  });

  it("a type URI answers a page to a browser and JSON to an API client", async () => {
    const type = "http://service/problems/rate-limited";
    const html = await SELF.fetch(type, { headers: { accept: browserAccept } });
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.headers.get("vary")).toMatch(/accept/i);
    const text = await html.text();
    expect(text).toContain("<title>Too many requests from this client</title>");
    expect(text).toContain("RATE_LIMITED");
    for (const accept of ["application/json", "application/problem+json", "*/*", ""]) {
      const res = await SELF.fetch(type, { headers: accept ? { accept } : {} });
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ type, title: "Too many requests from this client" });
    }
    // A reason's type too.
    const reason = await SELF.fetch("http://service/problems/bot-challenge", { headers: { accept: browserAccept } });
    expect(await reason.text()).toContain("bot-protection challenge");
    expect((await SELF.fetch("http://service/problems/no-such-thing")).status).toBe(404);
  });
});
