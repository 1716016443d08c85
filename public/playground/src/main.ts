/** The playground: paste a URL, see what the service knows. Same origin as the API (no CORS needed). */
import type { EmbedResponse, InspectResponse } from "../../../shared/schemas/inspect.ts";
import type { JobResource } from "../../../shared/schemas/job.ts";
import { reasonInWords } from "./reasons.ts";
import { curlFor, type Exchange, getJob, inspect, type InspectOptions, isErrorBody } from "./api.ts";
import { byId, clear, h } from "./dom.ts";
import { renderCard, renderEmbedCard } from "./render.ts";
import { renderError, renderExchanges, renderHeaders, renderProgress, renderStages, renderTimings } from "./status-panels.ts";

/** Where `npm run samples` serves its files; `?samples=<http(s) URL>` points the links elsewhere. */
const defaultSamplesOrigin = "http://127.0.0.1:8790/";
const sampleFiles = ["image.jpg", "image.png", "video.mp4", "video.webm", "audio.mp3", "audio.flac"];
const providerSample = { label: "YouTube video", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" };
const pollIntervalMs = 500;
/** A job still running after this long is left alone (the page says so); the service keeps working on it. */
const pollLimitMs = 120_000;

const form = byId<HTMLFormElement>("inspect-form");
const urlInput = byId<HTMLInputElement>("url");
const profileSelect = byId<HTMLSelectElement>("profile");
const debugBox = byId<HTMLInputElement>("debug");
const statusLine = byId("status");
let exchanges: Exchange[] = [];
/** Bumped by every new inspection so an older one still polling stops drawing. */
let run = 0;

function checked(name: string): string[] {
  return [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);
}

function options(): InspectOptions {
  return { profile: profileSelect.value, fields: checked("fields"), expand: checked("expand"), debug: debugBox.checked };
}

function samplesOrigin(): string {
  const given = new URLSearchParams(location.search).get("samples");
  // Only used to build the links' URLs (put into the URL box); the page never fetches it itself.
  if (!given) return defaultSamplesOrigin;
  try {
    const url = new URL(given);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : defaultSamplesOrigin;
  } catch {
    return defaultSamplesOrigin;
  }
}

function renderSamples(): void {
  const list = byId("samples");
  const base = samplesOrigin();
  const entries = [
    ...sampleFiles.map((file) => ({ label: file, url: new URL(file, base).href })),
    providerSample,
  ];
  for (const { label, url } of entries) {
    const button = h("button", { type: "button", class: "sample", "data-url": url, title: url }, label);
    button.addEventListener("click", () => {
      urlInput.value = url;
      form.requestSubmit();
    });
    list.append(h("li", {}, button));
  }
  byId("samples-origin").textContent = base;
}

function record(exchange: Exchange): Exchange {
  exchanges.push(exchange);
  renderExchanges(exchanges);
  return exchange;
}

function showJson(body: unknown): void {
  byId("raw-json").textContent = typeof body === "string" ? body : JSON.stringify(body, null, 2);
}

function setStatus(text: string): void {
  statusLine.textContent = text;
}

function resetView(): void {
  exchanges = [];
  renderExchanges(exchanges);
  byId("card").hidden = true;
  clear(byId("card"));
  byId("error").hidden = true;
  clear(byId("stages"));
  clear(byId("timings"));
  byId("stages-section").hidden = true;
  byId("timings-section").hidden = true;
  clear(byId("headers"));
  showJson("");
  renderProgress(undefined, "");
  byId("results").hidden = false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The stages as they finish: `processing` is the same for every profile, so the cheapest answer
 * (fast, identity only) shows which stages are done while the job runs.
 */
async function refreshStages(url: string, mine: number): Promise<void> {
  const exchange = await inspect(url, { profile: "fast", fields: ["identity"], expand: [], debug: false });
  if (mine !== run || exchange.status >= 400 || isErrorBody(exchange.body)) return;
  const previous = exchanges.findIndex((e) => e.url === exchange.url);
  if (previous >= 0) exchanges.splice(previous, 1);
  record(exchange);
  renderStages((exchange.body as InspectResponse).processing);
}

async function pollJob(id: string, url: string, mine: number): Promise<InspectResponse | undefined> {
  const started = performance.now();
  while (performance.now() - started < pollLimitMs) {
    await sleep(pollIntervalMs);
    if (mine !== run) return undefined;
    const exchange = await getJob(id);
    // One row per kind of poll, updated in place, rather than rows per tick.
    const previous = exchanges.findIndex((e) => e.url === exchange.url);
    if (previous >= 0) exchanges.splice(previous, 1);
    record(exchange);
    if (isErrorBody(exchange.body)) {
      showError(exchange);
      return undefined;
    }
    const job = exchange.body as JobResource;
    renderProgress(job.job.progress, `Job ${job.job.status}:`);
    if (job.job.status === "completed" && job.data) {
      showJson(exchange.body);
      return job.data;
    }
    if (job.job.status === "failed") {
      // Every stage the job waited for failed; the record (with each stage's reason) is still worth showing.
      if (job.data) {
        showJson(exchange.body);
        return job.data;
      }
      setStatus("The job failed: the resource could not be inspected any more.");
      return undefined;
    }
    await refreshStages(url, mine);
  }
  setStatus(`Still running after ${pollLimitMs / 1000} s; stopped polling.`);
  return undefined;
}

function showError(exchange: Exchange): void {
  if (isErrorBody(exchange.body)) {
    const { code, message, reason, upstreamStatus } = exchange.body.error;
    const retryAfter = exchange.headers.find(([n]) => n === "retry-after")?.[1] ?? null;
    renderError(exchange, code, message, reasonInWords(reason, upstreamStatus, retryAfter));
  }
  else renderError(exchange, "NO_JSON", `The service answered ${exchange.status} without the error envelope.`);
  setStatus(`Error (HTTP ${exchange.status}).`);
}

async function inspectNow(url: string, opts: InspectOptions): Promise<void> {
  const mine = ++run;
  resetView();
  byId("curl").textContent = curlFor(url, opts);
  setStatus("Inspecting…");
  const first = record(await inspect(url, opts));
  if (mine !== run) return;
  renderHeaders(first);
  showJson(first.body);
  if (first.status >= 400 || isErrorBody(first.body)) return showError(first);

  if (opts.profile === "embed") {
    renderEmbedCard(first.body as EmbedResponse);
    setStatus(`${first.status} · embed profile · ${first.ms} ms`);
    byId("app").dataset.state = "done";
    return;
  }
  let envelope = first.body as InspectResponse;
  renderCard({ envelope });
  renderStages(envelope.processing);
  setStatus(`${first.status} · ${envelope.responseSource} · ${first.ms} ms`);
  renderTimings(envelope.data.diagnostics, first.headers.find(([n]) => n === "server-timing")?.[1]);

  if (first.status === 202 && envelope.job) {
    setStatus(`202 · heavy stages run in the background; polling job ${envelope.job.id}`);
    renderProgress(Math.round(envelope.processing.completion * 100), "Job processing:");
    const done = await pollJob(envelope.job.id, url, mine);
    if (mine !== run) return;
    if (!done) {
      byId("app").dataset.state = "done";
      return;
    }
    envelope = done;
    setStatus(done.processing.failedStages?.length
      ? `Job ended: ${done.processing.failedStages.length} stage(s) failed (reasons below) · first answer ${first.ms} ms`
      : `Job completed (result in the standard profile) · first answer ${first.ms} ms`);
  }

  if (envelope.processing.status === "partial" && !envelope.job) {
    setStatus(`${first.status} · ${envelope.responseSource} · partial: the pending stages finish in the background (inspect again, or use standard/full)`);
  }

  // Follow-ups once complete: per-stage diagnostics (the full profile answers at once from the finished
  // record) and the provider's player from the embed profile.
  let diagnostics = envelope.data.diagnostics;
  if (envelope.processing.status === "complete" && !diagnostics) {
    const diag = record(await inspect(url, { profile: "full", fields: ["diagnostics"], expand: [], debug: false }));
    if (diag.status === 200 && !isErrorBody(diag.body)) diagnostics = (diag.body as InspectResponse).data.diagnostics;
  }
  let embed: EmbedResponse["data"] | undefined;
  if (envelope.data.playback?.component === "iframe") {
    const e = record(await inspect(url, { profile: "embed", fields: [], expand: [], debug: false }));
    if (e.status === 200 && !isErrorBody(e.body)) embed = (e.body as EmbedResponse).data;
  }
  if (mine !== run) return;
  renderCard({ envelope, embed, diagnostics });
  renderStages(envelope.processing, diagnostics);
  renderTimings(diagnostics, first.headers.find(([n]) => n === "server-timing")?.[1]);
  renderProgress(envelope.processing.status === "complete" ? 100 : Math.round(envelope.processing.completion * 100),
    envelope.processing.status === "complete" ? "Complete:" : "Partial:");
  byId("app").dataset.state = "done";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const url = urlInput.value.trim();
  if (!url) return;
  byId("app").dataset.state = "running";
  const opts = options();
  const query = new URLSearchParams(location.search);
  query.set("url", url);
  query.set("profile", opts.profile);
  history.replaceState(null, "", `?${query}`);
  inspectNow(url, opts).catch((error: unknown) => {
    setStatus(`Request failed: ${error instanceof Error ? error.message : String(error)}`);
    byId("app").dataset.state = "done";
  });
});

byId("copy-curl").addEventListener("click", async () => {
  const text = byId("curl").textContent ?? "";
  const note = byId("copy-note");
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = "Copied.";
  } catch {
    // No clipboard permission: select the text so Ctrl-C works.
    const range = document.createRange();
    range.selectNodeContents(byId("curl"));
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    note.textContent = "Selected: press Ctrl-C to copy.";
  }
});

renderSamples();
const initial = new URLSearchParams(location.search);
const profileParam = initial.get("profile");
if (profileParam && [...profileSelect.options].some((o) => o.value === profileParam)) profileSelect.value = profileParam;
const urlParam = initial.get("url");
if (urlParam) {
  urlInput.value = urlParam;
  form.requestSubmit();
}
byId("app").dataset.ready = "true";
