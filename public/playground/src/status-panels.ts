/** The inspection's status panels (stage chips, progress, timings) and the HTTP exchange panels (headers, requests, error). */
import type { InspectResponse } from "../../../shared/schemas/inspect.ts";
import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import type { Exchange } from "./api.ts";
import { append, byId, clear, h } from "./dom.ts";

type Diagnostics = NonNullable<InspectData["diagnostics"]>;

/** Stage chips: done, pending, or failed with the reason (from diagnostics when available). */
export function renderStages(processing: InspectResponse["processing"] | undefined, diagnostics?: Diagnostics): void {
  const list = byId("stages");
  clear(list);
  byId("stages-section").hidden = !processing;
  if (!processing) return;
  const failed = new Set(processing.failedStages ?? []);
  const all = [...processing.completedStages, ...processing.pendingStages];
  for (const stage of all) {
    const state = failed.has(stage) ? "failed" : processing.pendingStages.includes(stage) ? "pending" : "done";
    const info = diagnostics?.stages?.[stage];
    const mark = state === "done" ? "✓" : state === "failed" ? "✕" : "…";
    const li = h("li", { class: `chip chip-${state}`, "data-stage": stage, "data-state": state },
      h("span", { "aria-hidden": "true" }, mark), ` ${stage}`,
      info?.engine ? h("span", { class: "chip-engine" }, info.engine) : null,
      h("span", { class: "visually-hidden" }, ` (${state})`));
    if (state === "failed") li.append(h("span", { class: "chip-reason" }, info?.error ?? "no reason given"));
    list.append(li);
  }
}

export function renderProgress(percent: number | undefined, label: string): void {
  const progress = byId<HTMLProgressElement>("progress");
  const text = byId("progress-label");
  if (percent === undefined) {
    progress.hidden = true;
    text.textContent = label;
    return;
  }
  progress.hidden = false;
  progress.value = percent;
  text.textContent = `${label} ${percent} %`;
}

/** Timing bars (diagnostics, else the Server-Timing header) and bytes pulled. */
export function renderTimings(diagnostics: Diagnostics | undefined, serverTiming: string | undefined): void {
  const box = byId("timings");
  clear(box);
  byId("timings-section").hidden = false;
  const entries: [string, number][] = diagnostics
    ? Object.entries(diagnostics.timings)
    : parseServerTiming(serverTiming ?? "");
  if (diagnostics?.stages) {
    for (const [stage, info] of Object.entries(diagnostics.stages)) {
      if (info.durationMs !== undefined && !entries.some(([k]) => k === stage)) entries.push([stage, info.durationMs]);
    }
  }
  if (entries.length === 0) {
    box.append(h("p", { class: "muted" }, "No timings yet (shown once the inspection is complete)."));
  } else {
    const max = Math.max(1, ...entries.map(([, ms]) => ms));
    const list = h("ul", { class: "bars" });
    for (const [name, ms] of entries.sort((a, b) => b[1] - a[1])) {
      const fill = h("span", { class: "bar-fill" });
      fill.style.width = `${Math.max(1, (ms / max) * 100)}%`;
      list.append(h("li", { class: "bar", "data-timing": name }, h("span", { class: "bar-name" }, name),
        h("span", { class: "bar-track", "aria-hidden": "true" }, fill), h("span", { class: "bar-ms" }, `${ms} ms`)));
    }
    box.append(list);
  }
  const bytes = diagnostics?.bytesFetched;
  if (bytes) {
    const parts = [`Worker ${formatBytes(bytes.worker)}`];
    if (bytes.runner !== undefined) parts.push(`media runner ${formatBytes(bytes.runner)}`);
    box.append(h("p", { id: "bytes", class: "bytes" }, `Bytes pulled from the origin: ${parts.join(", ")}`));
  }
}

/** `name;dur=12.3;desc="x", other;dur=4`: split on commas and semicolons only (linear, no regex backtracking). */
function parseServerTiming(header: string): [string, number][] {
  const out: [string, number][] = [];
  for (const metric of header.split(",").slice(0, 50)) {
    const [name, ...params] = metric.split(";").map((s) => s.trim());
    const dur = params.find((p) => p.startsWith("dur="));
    if (name && dur) {
      const ms = Number(dur.slice(4));
      if (Number.isFinite(ms)) out.push([name, Math.round(ms)]);
    }
  }
  return out;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

const highlighted = ["x-request-id", "server-timing", "location", "retry-after", "content-type", "cache-control", "etag"];

export function renderHeaders(exchange: Exchange): void {
  const dl = byId("headers");
  clear(dl);
  const sorted = [...exchange.headers].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  for (const [name, value] of sorted) {
    dl.append(h("div", { class: highlighted.includes(name) ? "header key" : "header", "data-header": name }, h("dt", {}, name), h("dd", {}, value)));
  }
  const absent = ["x-request-id", "server-timing"].filter((name) => !exchange.headers.some(([n]) => n === name));
  if (absent.length > 0) dl.append(h("p", { class: "muted absent" }, `Not sent by this service version: ${absent.join(", ")}`));
}

function rank(name: string): number {
  const i = highlighted.indexOf(name);
  return i < 0 ? highlighted.length : i;
}

export function renderExchanges(exchanges: Exchange[]): void {
  const list = byId("exchanges");
  clear(list);
  for (const e of exchanges) {
    const id = e.headers.find(([n]) => n === "x-request-id")?.[1];
    list.append(h("li", {}, h("code", {}, `${e.method} ${e.url}`), ` → ${e.status} in ${e.ms} ms`, id ? h("span", { class: "muted" }, ` · ${id}`) : null));
  }
}

export function renderError(exchange: Exchange, code: string, message: string, why?: string): void {
  const box = byId("error");
  clear(box);
  box.hidden = false;
  append(box, h("strong", { class: "error-code" }, code), ` HTTP ${exchange.status}: `, h("span", { class: "error-message" }, message));
  if (why) append(box, h("p", { class: "error-reason" }, why));
}
