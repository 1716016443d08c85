// The MCP server at /mcp driven by the official MCP SDK's client, and the `media-inspect` command run as a process,
// both against the real `npm start` (wrangler dev + runner) and `npm run samples`. A trap socket on loopback (not
// allow-listed) counts every connection, so a refused address is shown to be refused before anything is fetched.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandCallAsShipped, clientTypecheck } from "../../testkit/client-typecheck.ts";
import { waitFor } from "../../testkit/wait-for.ts";
import { InspectResponse } from "../../shared/schemas/inspect.ts";
import { JobResource } from "../../shared/schemas/job.ts";
import { OembedDocument } from "../../shared/schemas/oembed-document.ts";
import { freePort, startSamples, startService, type StartedService } from "../../testkit/start-service.ts";

const root = join(import.meta.dirname, "..", "..");
const command = join(root, "client", "media-inspect.mjs");

let service: StartedService;
let samples: Awaited<ReturnType<typeof startSamples>>;
let trap: Server;
let trapPort = 0;
let trapConnections = 0;
const unique = () => `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  trap = createServer((socket) => {
    trapConnections++;
    socket.destroy();
  });
  await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
  trapPort = (trap.address() as { port: number }).port;
  samples = await startSamples();
  // The rate limit is on (the default 60 a minute per client) so an MCP call's cost can be counted; the tests that
  // spend it name their own client (CF-Connecting-IP, believed here as behind Cloudflare's edge: CLIENT_IP_SOURCE), the
  // others share one bucket far below the limit.
  service = await startService({ env: { SSRF_ALLOWLIST: `127.0.0.1:${samples.port}`, INSPECT_RATE_LIMIT: "60", CLIENT_IP_SOURCE: "cloudflare" }, settlePosts: 2 });
}, 240_000);

afterAll(async () => {
  await service?.stop("SIGKILL");
  await samples?.stop();
  await new Promise((r) => trap?.close(r));
});

async function mcpClient(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`), { requestInit: { headers } }));
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => result.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("\n");
const imagesOf = (result: CallToolResult) => result.content.filter((c) => c.type === "image") as { type: "image"; data: string; mimeType: string }[];

describe("MCP server at /mcp, through the official SDK client (Client + StreamableHTTPClientTransport)", () => {
  let client: Client;
  beforeAll(async () => {
    client = await mcpClient();
  });
  afterAll(async () => client?.close());

  it("initializes at the SDK's latest protocol version and names the server", async () => {
    const transport = (client as unknown as { transport: StreamableHTTPClientTransport }).transport;
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(client.getServerVersion()).toMatchObject({ name: "media-inspect" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/inspect_media_url/);
  });

  it("lists the four tools, read-only and open-world annotated, each with an object output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_inspection_job", "get_storyboard", "inspect_media_url", "oembed_for_url"]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(typeof tool.annotations?.openWorldHint, tool.name).toBe("boolean");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
    const inspect = tools.find((t) => t.name === "inspect_media_url")!;
    expect(Object.keys(inspect.inputSchema.properties ?? {}).sort()).toEqual(["expand", "fields", "profile", "url"]);
    expect(inspect.annotations?.openWorldHint).toBe(true);
  });

  it("inspect_media_url on an image: MIME and dimensions in structuredContent, valid against the API's schema", async () => {
    const result = await call(client, "inspect_media_url", { url: `${samples.url}/image.jpg?mcp=${unique()}`, profile: "fast" });
    expect(result.isError, textOf(result)).toBeFalsy();
    const body = InspectResponse.parse(result.structuredContent);
    expect(body.data.identity?.mime).toBe("image/jpeg");
    expect(body.data.metadata?.image).toMatchObject({ width: 1280, height: 720 });
    expect(textOf(result)).toMatch(/^image\/jpeg \(image\)\n1280x720/);
  });

  it("inspect_media_url on a video in full: duration in structuredContent and the thumbnail as image content", async () => {
    const result = await call(client, "inspect_media_url", { url: `${samples.url}/video.mp4?mcp=${unique()}`, profile: "full" });
    expect(result.isError, textOf(result)).toBeFalsy();
    const body = InspectResponse.parse(result.structuredContent);
    expect(body.processing.status).toBe("complete");
    expect(body.data.metadata?.video?.duration?.seconds).toBe(5);
    const [image, ...more] = imagesOf(result);
    expect(more).toEqual([]);
    expect(image?.mimeType).toBe("image/webp");
    const bytes = Buffer.from(image!.data, "base64");
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(bytes.subarray(8, 12).toString("latin1")).toBe("WEBP");
    // The very file GET /api/v1/thumbnails/... serves.
    const served = Buffer.from(await (await fetch(`${service.base}${body.data.preview!.thumbnail!.url}`)).arrayBuffer());
    expect(bytes.equals(served)).toBe(true);
    expect(textOf(result)).toContain("0:05");
    expect(textOf(result)).toContain(`Thumbnail: ${service.base}/api/v1/thumbnails/`);
  });

  it("a denied address: isError carrying SSRF_BLOCKED, and nothing reaches it", async () => {
    const before = trapConnections;
    const result = await call(client, "inspect_media_url", { url: `http://127.0.0.1:${trapPort}/x.mp4`, profile: "full" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({
      status: "error",
      error: { code: "SSRF_BLOCKED", message: "The target resolves to an address this service does not fetch (private, local or metadata)." },
    });
    expect(trapConnections, "a connection reached the trap").toBe(before);
  });

  it("the trap does count a real connection (the check above can fail)", async () => {
    const before = trapConnections;
    await new Promise<void>((resolve) => connect(trapPort, "127.0.0.1").on("close", () => resolve()).on("error", () => resolve()));
    for (let i = 0; i < 50 && trapConnections === before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(trapConnections).toBe(before + 1);
  });

  it("a bad URL and an unknown job answer the API's codes (INVALID_URL, JOB_NOT_FOUND)", async () => {
    const bad = await call(client, "inspect_media_url", { url: "ftp://example.test/x.mp4" });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(textOf(bad)).error.code).toBe("INVALID_URL");
    const job = await call(client, "get_inspection_job", { id: "job_nope" });
    expect(job.isError).toBe(true);
    expect(JSON.parse(textOf(job)).error.code).toBe("JOB_NOT_FOUND");
  });

  it("get_inspection_job follows a standard inspection's job to the completed result", async () => {
    const first = await call(client, "inspect_media_url", { url: `${samples.url}/video.webm?mcp=${unique()}` });
    const body = InspectResponse.parse(first.structuredContent);
    expect(body.job?.id, textOf(first)).toBeDefined();
    expect(textOf(first)).toContain(`get_inspection_job with id ${body.job!.id}`);
    // Polled through the tool, as an agent would, until the job settles.
    const job = await waitFor(async () => {
      const polled = JobResource.parse((await call(client, "get_inspection_job", { id: body.job!.id })).structuredContent);
      return polled.job.status === "completed" || polled.job.status === "failed" ? polled : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250, what: "the job settled" });
    expect(job.job.status).toBe("completed");
    expect(job.data?.data.preview?.thumbnail?.url).toMatch(/^\/api\/v1\/thumbnails\//);
  });

  it("get_storyboard: the sprite as image content and the cue list", async () => {
    const result = await call(client, "get_storyboard", { url: `${samples.url}/video.mp4?sb=${unique()}` });
    expect(result.isError, textOf(result)).toBeFalsy();
    const out = result.structuredContent as { status: string; storyboard: { tiles: number; interval: number; tileWidth: number }; cues: { start: number; end: number; x: number; width: number }[]; spriteUrl: string };
    expect(out.status).toBe("complete");
    expect(out.cues).toHaveLength(out.storyboard.tiles);
    expect(out.cues[1]).toMatchObject({ start: out.storyboard.interval, x: out.storyboard.tileWidth, width: out.storyboard.tileWidth });
    const [sprite] = imagesOf(result);
    expect(sprite?.mimeType).toBe("image/webp");
    const served = Buffer.from(await (await fetch(out.spriteUrl)).arrayBuffer());
    expect(Buffer.from(sprite!.data, "base64").equals(served)).toBe(true);
    const image = await call(client, "get_storyboard", { url: `${samples.url}/image.png` });
    expect(image.isError).toBe(true);
    expect(JSON.parse(textOf(image)).error.code).toBe("NOT_FOUND");
  });

  it("oembed_for_url: the document GET /oembed answers", async () => {
    const url = `${samples.url}/video.webm`;
    const result = await call(client, "oembed_for_url", { url, maxwidth: 320 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const doc = OembedDocument.parse(result.structuredContent);
    expect(doc).toMatchObject({ type: "video", width: 320, height: 180 });
    const rest = await (await fetch(`${service.base}/oembed?url=${encodeURIComponent(url)}&maxwidth=320`)).json();
    expect({ ...doc, cache_age: 0 }).toEqual({ ...(rest as object), cache_age: 0 });
  });

  it("a foreign Origin gets 403 before any JSON-RPC is read; the service's own origin is served", async () => {
    const post = (origin: string) =>
      fetch(`${service.base}/mcp`, {
        method: "POST",
        headers: { origin, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    const foreign = await post("http://rebound.example:8787");
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
    const own = await post(service.base);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await expect(mcpClient({ origin: "http://rebound.example" })).rejects.toThrow(/403|Forbidden/);
  });
});

describe("an MCP call costs what the REST call costs: one inspection of the client's rate limit", () => {
  /** Inspections admitted for a client: batches of 20 of one cached URL until one is refused (at most 80). */
  async function admittedInspections(clientIp: string, url: string): Promise<number> {
    let admitted = 0;
    for (let batch = 0; batch < 4; batch++) {
      const response = await fetch(`${service.base}/api/v1/inspect/batch?profile=fast`, {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": clientIp },
        body: JSON.stringify({ urls: new Array(20).fill(url) }),
      });
      // A batch none of whose URLs fits answers 429 as a whole.
      if (response.status === 429) break;
      const { results } = (await response.json()) as { results: { status?: string; error?: { code: string } }[] };
      const allowed = results.filter((r) => r.error?.code !== "RATE_LIMITED").length;
      admitted += allowed;
      if (allowed < 20) break;
    }
    return admitted;
  }

  it("the same window: one MCP call leaves 59 of 60, and past the limit the tool answers RATE_LIMITED", async () => {
    // The local limiter counts per wall-clock minute. Instead of waiting for a minute to start, a run that crossed into
    // the next minute is run again, at once: it then starts at the beginning of a window, with fresh addresses.
    const spendOneWindow = async () => {
      const url = `${samples.url}/image.png?rate=${unique()}`;
      const octet = 1 + Math.floor(Math.random() * 200);
      const [viaMcp, control, exhausted] = [`198.51.100.${octet}`, `198.51.100.${octet + 1}`, `198.51.100.${octet + 2}`];
      const client = await mcpClient({ "cf-connecting-ip": viaMcp });
      let mcp: { isError: boolean; text: string; leftAfterMcp: number; leftForControl: number };
      try {
        const result = await call(client, "inspect_media_url", { url, profile: "fast" });
        mcp = { isError: result.isError === true, text: textOf(result), leftAfterMcp: await admittedInspections(viaMcp, url), leftForControl: await admittedInspections(control, url) };
      } finally {
        await client.close();
      }
      const exhaustedAdmitted = await admittedInspections(exhausted, url);
      const refused = await mcpClient({ "cf-connecting-ip": exhausted });
      try {
        const result = await call(refused, "inspect_media_url", { url, profile: "fast" });
        return { ...mcp, exhaustedAdmitted, refused: { isError: result.isError === true, text: textOf(result) } };
      } finally {
        await refused.close();
      }
    };
    const minute = Math.floor(Date.now() / 60_000);
    let seen = await spendOneWindow();
    // Crossed into the next minute: again, from (nearly) the start of this one.
    if (Math.floor(Date.now() / 60_000) !== minute) seen = await spendOneWindow();
    expect(seen.isError, seen.text).toBe(false);
    // initialize and tools/list spent nothing; the call spent one.
    expect(seen.leftAfterMcp).toBe(59);
    expect(seen.leftForControl).toBe(60);
    expect(seen.exhaustedAdmitted).toBe(60);
    expect(seen.refused.isError).toBe(true);
    expect(JSON.parse(seen.refused.text).error.code).toBe("RATE_LIMITED");
  }, 120_000);
});

/** Runs the command as a process: exit status, stdout, stderr. */
function runCommand(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [command, ...args], {
      cwd: root,
      env: { ...process.env, MEDIA_INSPECT_URL: service.base, NO_COLOR: undefined, ...env } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the command on a pseudo-terminal (util-linux `script`): stdout and stderr are both the terminal. */
function runOnTerminal(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; output: string }> {
  const line = [process.execPath, command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", line, "/dev/null"], {
      cwd: root,
      env: { ...process.env, MEDIA_INSPECT_URL: service.base, NO_COLOR: undefined, ...env } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("media-inspect, run as a process", () => {
  it("its calls are type-checked against the API's routes (JSDoc over AppType): a wrong body field fails tsc", async () => {
    // A copy of client/cli with one call's body changed (testkit/client-typecheck.ts, one tsc run shared with the
    // other typed-client checks): tsc names that, and only that, in the command's files.
    expect(readFileSync(join(root, "client", "cli", "api.mjs"), "utf8")).toContain(commandCallAsShipped);
    const { output, errors, folder } = await clientTypecheck();
    const inCommand = errors.filter((line) => line.startsWith(`${folder}/`) && /^[^(]*\.mjs\(/.test(line));
    expect(inCommand, output).toHaveLength(1);
    expect(inCommand[0]).toMatch(/api\.mjs\(\d+,\d+\): error TS2353: .*'link' does not exist in type '\{ url: string; webhookUrl\?: string \| undefined; \}'/);
  }, 300_000);

  it("--help prints the usage and exits 0", async () => {
    const { code, stdout, stderr } = await runCommand(["--help"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    for (const option of ["--profile", "--fields", "--expand", "--json", "--service", "batch <file>", "MEDIA_INSPECT_URL", "NO_COLOR"]) expect(stdout).toContain(option);
    expect(stdout).toMatch(/0 answered, 1 the inspection failed .*\n.*2 usage, 3 the service could not be reached/);
  });

  it("--json prints exactly the API's answer to the same request", async () => {
    const url = `${samples.url}/video.mp4?json=${unique()}`;
    const rest = () =>
      fetch(`${service.base}/api/v1/inspect?profile=full&fields=identity,metadata,playback,preview`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
    expect((await rest()).status).toBe(200);
    const { code, stdout, stderr } = await runCommand([url, "--profile", "full", "--fields", "identity,metadata,playback,preview", "--json"]);
    expect(code, stderr).toBe(0);
    const answer = await (await rest()).text();
    expect(stdout).toBe(`${answer}\n`);
  });

  it("prints the aligned summary of a video, following its job silently when stderr is not a terminal", async () => {
    const url = `${samples.url}/video.mp4?human=${unique()}`;
    const { code, stdout, stderr } = await runCommand([url]);
    expect(code, stderr).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).not.toContain("\x1b[");
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toContain(`URL         ${url}`);
    expect(lines).toContain("MIME        video/mp4");
    expect(lines).toContain("Category    video (direct-media)");
    expect(lines).toContain("Dimensions  640x360");
    expect(lines).toContain("Duration    0:05 (5 s)");
    expect(lines).toContain('Codecs      video/mp4; codecs="avc1.64001E, mp4a.40.2"');
    expect(lines).toContain("Browsers    chrome   native");
    expect(lines).toContain("            safari   native");
    expect(lines.find((l) => l.startsWith("Thumbnail"))).toMatch(new RegExp(`^Thumbnail   ${service.base}/api/v1/thumbnails/[0-9a-f-]+-320x180\\.webp$`));
    expect(lines.at(-1)).toBe("Processing  complete");
  });

  it("on a terminal: a progress bar while the job runs and coloured verdicts; NO_COLOR turns the colour off", async () => {
    const coloured = await runOnTerminal([`${samples.url}/video.webm?tty=${unique()}`]);
    expect(coloured.code).toBe(0);
    expect(coloured.output).toMatch(/\r\[[#-]{30}\] +\d+% job /);
    expect(coloured.output).toContain("\x1b[32mnative\x1b[0m");
    const plain = await runOnTerminal([`${samples.url}/video.webm?tty=${unique()}`], { NO_COLOR: "1" });
    expect(plain.code).toBe(0);
    expect(plain.output).toMatch(/\r\[[#-]{30}\] +\d+% job /);
    expect(plain.output).not.toMatch(/\x1b\[\d+m/);
    expect(plain.output).toContain("Duration    0:05");
  });

  it("a denied URL exits 1 with the code and message on stderr, and nothing reaches it", async () => {
    const before = trapConnections;
    const { code, stdout, stderr } = await runCommand([`http://127.0.0.1:${trapPort}/x.mp4`]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe("media-inspect: SSRF_BLOCKED: The target resolves to an address this service does not fetch (private, local or metadata).\n");
    expect(trapConnections).toBe(before);
  });

  it("usage mistakes exit 2; a service that cannot be reached exits 3", async () => {
    for (const args of [[], ["--profile", "turbo", "http://x.test/a.mp4"], ["--nope", "http://x.test/a.mp4"], ["a", "b"], ["--service", "ftp://x", "http://x.test/a.mp4"]]) {
      const { code, stderr } = await runCommand(args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toMatch(/^media-inspect: .+\nRun media-inspect --help for usage\.\n$/);
    }
    const closed = await freePort();
    const { code, stderr } = await runCommand([`${samples.url}/image.png`], { MEDIA_INSPECT_URL: `http://127.0.0.1:${closed}` });
    expect(code).toBe(3);
    expect(stderr).toContain(`cannot reach the service at http://127.0.0.1:${closed} (ECONNREFUSED)`);
  });

  it("batch <file>: one JSON line per URL, in order, through the batch endpoint; a failed URL makes the exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "media-inspect-"));
    try {
      const file = join(dir, "urls.txt");
      writeFileSync(file, `# two files and a refused address\n${samples.url}/image.jpg\n\n${samples.url}/audio.mp3\nhttp://127.0.0.1:${trapPort}/y.png\n`);
      const { code, stdout, stderr } = await runCommand(["batch", file, "--profile", "fast"]);
      expect(code).toBe(1);
      expect(stderr).toBe("media-inspect: 1 of 3 URLs failed (their error envelopes are in the output)\n");
      const lines = stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
      expect(lines).toHaveLength(3);
      expect(lines[0].data.identity.mime).toBe("image/jpeg");
      expect(lines[1].data.identity.mime).toBe("audio/mpeg");
      expect(lines[2].error.code).toBe("SSRF_BLOCKED");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
