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
  const params = dispositionParams(header);
  const extended = params.get("filename*");
  if (extended !== undefined) {
    // RFC 8187: charset'language'percent-encoded
    const first = extended.indexOf("'");
    const second = first < 0 ? -1 : extended.indexOf("'", first + 1);
    if (second >= 0) {
      try {
        const decoded = decodeURIComponent(extended.slice(second + 1).trim());
        if (decoded) return decoded;
      } catch {
        /* fall through to the plain parameter */
      }
    }
  }
  return params.get("filename") || undefined;
}

/**
 * `name=value` parameters of a Content-Disposition value (quoted strings with backslash escapes, or tokens),
 * read in one forward pass: the header is untrusted, so no backtracking regular expression sees it. The first
 * occurrence of a parameter wins.
 */
function dispositionParams(header: string): Map<string, string> {
  const params = new Map<string, string>();
  const n = header.length;
  let i = header.indexOf(";");
  while (i >= 0 && i < n) {
    i++; // past ";"
    const eq = indexOfEither(header, "=", ";", i);
    if (eq < 0) break;
    if (header[eq] === ";") {
      i = eq;
      continue;
    }
    const name = header.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (j < n && (header[j] === " " || header[j] === "\t")) j++;
    let value = "";
    if (header[j] === '"') {
      j++;
      while (j < n && header[j] !== '"') {
        if (header[j] === "\\" && j + 1 < n) j++;
        value += header[j];
        j++;
      }
      j++;
      const next = header.indexOf(";", j);
      i = next;
    } else {
      const next = header.indexOf(";", j);
      value = header.slice(j, next < 0 ? n : next).trim();
      i = next;
    }
    if (name && !params.has(name)) params.set(name, value);
  }
  return params;
}

function indexOfEither(text: string, a: string, b: string, from: number): number {
  for (let k = from; k < text.length; k++) if (text[k] === a || text[k] === b) return k;
  return -1;
}

/** Keeps only the base name and drops control characters, so the value is safe to show and to save. */
function sanitize(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const base = name.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return base ? base.slice(0, 255) : undefined;
}
