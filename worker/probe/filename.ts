/**
 * Filename from Content-Disposition (RFC 6266: `filename*` with RFC 8187 encoding wins over `filename`),
 * else the last non-empty path segment of the final URL.
 */
export function filenameFrom(contentDisposition: string | null, finalUrl: string): string | undefined {
  const fromHeader = contentDisposition ? parseDisposition(contentDisposition) : undefined;
  if (fromHeader) return sanitize(fromHeader);
  const segment = new URL(finalUrl).pathname.split("/").filter(Boolean).pop();
  if (!segment) return undefined;
  try {
    return sanitize(decodeURIComponent(segment));
  } catch {
    return sanitize(segment);
  }
}

function parseDisposition(header: string): string | undefined {
  const extended = header.match(/filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      /* fall through to the plain parameter */
    }
  }
  const quoted = header.match(/filename\s*=\s*"((?:[^"\\]|\\.)*)"/i);
  if (quoted?.[1] !== undefined) return quoted[1].replace(/\\(.)/g, "$1");
  const token = header.match(/filename\s*=\s*([^;\s]+)/i);
  return token?.[1];
}

/** Keeps only the base name and drops control characters, so the value is safe to show and to save. */
function sanitize(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const base = name.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return base ? base.slice(0, 255) : undefined;
}
