/**
 * The documents behind RFC 9457 problem `type` URIs (`<base>/problems/<reason or kebab-case code>`): a person who
 * follows the link in a browser gets a page; an API client gets the same facts as JSON. Chosen by Accept (q-values
 * honoured; `*\/*` alone, as curl sends, is an API client), with `Vary: Accept` so caches keep both.
 */
import type { Context } from "hono";
import { accepts } from "hono/accepts";
import { ErrorReason, errorCodes, errorTitles, type ErrorCode } from "../../shared/schemas/error.ts";
import { escapeHtmlAttribute as esc } from "../../shared/providers/index.ts";
import type { AppEnv } from "./app-env.ts";
import { notFound } from "./error-handling.ts";
import { problemTitles, problemType } from "./problem-details.ts";

interface ProblemTypeDocument {
  type: string;
  title: string;
  description: string;
}

/** The problem type a path segment names, or undefined. */
function documentFor(base: string, name: string): ProblemTypeDocument | undefined {
  if (ErrorReason.safeParse(name).success) {
    return {
      type: problemType(base, "BAD_GATEWAY", name),
      title: problemTitles[name] ?? name,
      description: `error.reason "${name}": why the origin exchange failed. ${ErrorReason.description ?? ""}`,
    };
  }
  const code = errorCodes.find((known) => known.toLowerCase().replaceAll("_", "-") === name) as ErrorCode | undefined;
  if (!code) return undefined;
  return {
    type: problemType(base, code),
    title: errorTitles[code],
    description: `error.code ${code}: an error code of this API; the answer's message says what happened and what to do. See /api-docs for when it is answered.`,
  };
}

function page(doc: ProblemTypeDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.title)}</title>
</head>
<body>
<h1>${esc(doc.title)}</h1>
<p>${esc(doc.description)}</p>
<p>Problem type <code>${esc(doc.type)}</code> of the Media URL Inspection API. <a href="/api-docs">API reference</a></p>
</body>
</html>
`;
}

export function answerProblemType(publicBase: (c: Context<AppEnv>) => string) {
  return (c: Context<AppEnv>) => {
    const doc = documentFor(publicBase(c), c.req.param("name") ?? "");
    if (!doc) return notFound(c);
    c.header("vary", "Accept");
    const wanted = accepts(c, { header: "Accept", supports: ["application/json", "text/html"], default: "application/json" });
    if (wanted === "text/html") {
      c.header("content-security-policy", "default-src 'none'");
      return c.html(page(doc));
    }
    return c.json(doc);
  };
}
