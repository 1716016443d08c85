export { formatDuration } from "./duration.ts";
export { formatBitrate } from "./bitrate.ts";
export { formatBytes } from "./bytes.ts";
