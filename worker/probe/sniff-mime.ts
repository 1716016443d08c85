import { fileTypeFromBuffer } from "file-type";
import type { MediaCategory } from "../../shared/schemas/stages.ts";

/**
 * MIME type from the bytes first (file-type's magic numbers), then HTML/SVG/text recognised by content,
 * and only then the declared Content-Type: origins often send application/octet-stream or a wrong type.
 */
export async function sniffMime(head: Uint8Array, declared: string | undefined): Promise<string> {
  const detected = await fileTypeFromBuffer(head).catch(() => undefined);
  if (detected) return normalizeMime(detected.mime);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(head.subarray(0, 1024)).trimStart().toLowerCase();
  if (text.startsWith("<svg") || (text.startsWith("<?xml") && text.includes("<svg"))) return "image/svg+xml";
  if (text.startsWith("<!doctype html") || text.startsWith("<html") || /<(head|body|meta|title)[\s>]/.test(text)) return "text/html";
  const declaredBase = declared?.split(";")[0]?.trim().toLowerCase();
  if (declaredBase && declaredBase !== "application/octet-stream") return normalizeMime(declaredBase);
  return "application/octet-stream";
}

const aliases: Record<string, string> = {
  "audio/x-flac": "audio/flac",
  "audio/x-wav": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
};

function normalizeMime(mime: string): string {
  return aliases[mime] ?? mime;
}

export function categoryOf(mime: string): MediaCategory {
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("audio/")) return "audio";
  return "webpage";
}
