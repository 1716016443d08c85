/**
 * The tracks panel: what a viewer meets besides the picture. Badges for captions, audio description, live and
 * encryption (a lock naming the key systems), the audio and text tracks with their languages, and the chapters
 * as marks on a timeline (a click seeks the player above).
 */
import type { InspectData } from "../../../shared/schemas/inspect-data.ts";
import { h } from "./dom.ts";

type Metadata = NonNullable<InspectData["metadata"]>;
type Tracks = NonNullable<Metadata["tracks"]>;
type Chapters = NonNullable<Metadata["chapters"]>;

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

function badge(role: string, text: string, title: string, on = true): HTMLElement {
  return h("span", { class: `badge ${on ? "badge-on" : "badge-off"}`, "data-role": role, title }, text);
}

/** The panel, or null when the answer names no tracks, chapters, encryption or live facts. */
export function tracksPanel(data: InspectData): HTMLElement | null {
  const tracks = data.metadata?.tracks;
  const chapters = data.metadata?.chapters;
  const protection = data.metadata?.protection;
  const live = data.playback?.live;
  const access = data.accessibility;
  if (!tracks && !chapters?.length && !protection && !live) return null;
  const badges = h("p", { class: "badges" },
    access ? badge("captions", "CC", access.captions ? "Captions for deaf and hard-of-hearing viewers" : "No captions track", access.captions) : null,
    access ? badge("audio-description", "AD", access.audioDescription ? "An audio-description track" : "No audio description", access.audioDescription) : null,
    protection?.encrypted
      ? badge("lock", `🔒 ${protection.scheme ?? "encrypted"}${protection.keySystems.length ? ` · ${protection.keySystems.join(", ")}` : ""}`,
        "Encrypted: plays only through Encrypted Media Extensions with a licence")
      : null,
    live ? badge("live", `LIVE${live.lowLatency ? " · low latency" : ""}${live.targetLatency !== undefined ? ` · ${live.targetLatency} s behind` : ""}${live.dvrWindow !== undefined ? ` · DVR ${clock(live.dvrWindow)}` : ""}`, "A live stream") : null,
  );
  return h("div", { class: "tracks", id: "tracks" },
    badges,
    access?.languages.audio.length || access?.languages.text.length
      ? h("p", { class: "muted", "data-role": "languages" }, `Audio: ${access.languages.audio.join(", ") || "-"} · Text: ${access.languages.text.join(", ") || "-"}`)
      : null,
    tracks ? trackTable(tracks) : null,
    chapters?.length ? chapterBar(chapters, data.metadata?.video?.duration?.seconds ?? data.metadata?.audio?.duration?.seconds) : null,
  );
}

function trackTable(tracks: Tracks): HTMLElement {
  const rows: HTMLElement[] = [];
  const row = (kind: string, cells: (string | undefined)[]) =>
    rows.push(h("tr", { "data-kind": kind }, h("td", {}, kind), ...cells.map((c) => h("td", {}, c ?? ""))));
  for (const v of tracks.video) row("video", [v.codec, v.language, v.width && v.height ? `${v.width}x${v.height}` : undefined, v.default ? "default" : undefined]);
  for (const a of tracks.audio) row("audio", [a.codec, a.language, [a.role, a.channels ? `${a.channels} ch` : undefined, a.name].filter(Boolean).join(" · "), a.default ? "default" : undefined]);
  for (const t of tracks.text) row("text", [`${t.kind} (${t.format})`, t.language, [t.forced ? "forced" : undefined, t.name].filter(Boolean).join(" · "), t.default ? "default" : undefined]);
  return h("table", { class: "track-table", "data-role": "track-table" },
    h("thead", {}, h("tr", {}, ...["track", "format", "language", "notes", ""].map((c) => h("th", {}, c)))),
    h("tbody", {}, ...rows));
}

/** Chapter marks along the file's length; a click seeks the card's player to that chapter. */
function chapterBar(chapters: Chapters, duration: number | undefined): HTMLElement {
  const total = duration && duration > 0 ? duration : Math.max(...chapters.map((c) => c.start)) * 1.1 || 1;
  const bar = h("div", { class: "chapter-bar", "data-role": "chapters" });
  for (const c of chapters) {
    const mark = h("button", { type: "button", class: "chapter-mark", title: `${clock(c.start)} ${c.title ?? ""}`, "aria-label": `Chapter at ${clock(c.start)}: ${c.title ?? "untitled"}` });
    mark.style.left = `${Math.min(100, (c.start / total) * 100)}%`;
    mark.addEventListener("click", () => {
      const player = document.querySelector<HTMLMediaElement>("#card video, #card audio");
      if (player) player.currentTime = c.start;
    });
    bar.append(mark);
  }
  const list = h("ol", { class: "chapter-list" }, ...chapters.map((c) => h("li", {}, h("code", {}, clock(c.start)), " ", c.title ?? "")));
  return h("div", { class: "chapters" }, bar, list);
}
