/** A strict reader of the WebVTT subset a thumbnails track uses: header, then cues of timing line + one text line. */
export interface VttCue {
  start: number;
  end: number;
  text: string;
}

function seconds(stamp: string): number {
  const m = /^(\d{2,}):(\d{2}):(\d{2})\.(\d{3})$/.exec(stamp);
  if (!m) throw new Error(`bad WebVTT timestamp ${stamp}`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
}

export function parseVtt(text: string): VttCue[] {
  const blocks = text.replace(/\r\n/g, "\n").split("\n\n").map((b) => b.trim()).filter((b) => b !== "");
  if (blocks[0] !== "WEBVTT") throw new Error("missing WEBVTT header");
  return blocks.slice(1).map((block) => {
    const [timing, cueText, ...rest] = block.split("\n");
    if (rest.length > 0 || !timing || cueText === undefined) throw new Error(`unexpected cue block: ${block}`);
    const [start, arrow, end] = timing.split(" ");
    if (arrow !== "-->" || !start || !end) throw new Error(`bad cue timing: ${timing}`);
    const cue = { start: seconds(start), end: seconds(end), text: cueText };
    if (!(cue.end > cue.start)) throw new Error(`cue ends before it starts: ${timing}`);
    return cue;
  });
}
