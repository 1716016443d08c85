// Progress of a background job on stderr: a bar redrawn in place on a terminal, nothing otherwise (a log file or
// a pipe gets no carriage-return noise).

/** Characters of the bar between its brackets. */
const barWidth = 30;

/**
 * @param {NodeJS.WriteStream | NodeJS.WritableStream} stream
 * @returns {{ update(percent: number, label: string): void, done(): void }}
 */
export function progressOn(stream) {
  const tty = "isTTY" in stream && stream.isTTY === true;
  let drawn = false;
  return {
    update(percent, label) {
      if (!tty) return;
      const clamped = Math.max(0, Math.min(100, Math.round(percent)));
      const filled = Math.round((clamped / 100) * barWidth);
      stream.write(`\r[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}] ${String(clamped).padStart(3)}% ${label}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write("\r\x1b[K");
      drawn = false;
    },
  };
}
