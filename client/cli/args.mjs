// Command-line arguments: `media-inspect <url> [options]` and `media-inspect batch <file> [options]`.
import { parseArgs } from "node:util";

/** @typedef {import("../../shared/schemas/inspect.ts").Profile} Profile */

/** The service asked when neither --service nor MEDIA_INSPECT_URL names one (`npm start`'s address). */
export const defaultService = "http://127.0.0.1:8787";

/** Every profile the API takes: a Record, so tsc fails here when the API gains or loses one. */
/** @type {Record<Profile, true>} */
const knownProfiles = { fast: true, standard: true, full: true, embed: true };

export const usage = `Usage:
  media-inspect <url> [--profile P] [--fields F] [--expand E] [--json] [--service URL]
  media-inspect batch <file> [--profile P] [--fields F] [--expand E] [--service URL]

Inspects a media URL with the Media URL Inspection API and prints a summary: MIME type, category,
dimensions, duration, codecs, whether each browser plays it, and the thumbnail's URL.

Options:
  -p, --profile P   fast, standard (default), full or embed. standard answers at once and finishes
                    previews in the background: the command follows that job (progress on stderr).
  -f, --fields F    comma-separated namespaces: identity, semantic, provider, playback, metadata,
                    preview, diagnostics, page
  -e, --expand E    comma-separated: embedHtml, storyboard, waveform, html (embed profile)
      --json        print the API's answer unchanged (JSON), instead of the summary
  -s, --service URL the service (default: $MEDIA_INSPECT_URL, else ${defaultService})
  -h, --help        this text

batch <file>        one URL a line ('-' reads stdin; blank lines and lines starting with # are skipped),
                    sent through POST /api/v1/inspect/batch; prints one JSON line per URL, in order.

Colour only on a terminal, never with NO_COLOR set.
Exit status: 0 answered, 1 the inspection failed (its code and message on stderr),
             2 usage, 3 the service could not be reached.`;

/** A usage mistake: exit status 2. */
export class UsageError extends Error {}

/**
 * @typedef {object} Command
 * @property {"help" | "inspect" | "batch"} kind
 * @property {string} [target] the URL, or the batch file
 * @property {{ profile?: Profile, fields?: string, expand?: string }} query
 * @property {boolean} json
 * @property {string} service
 */

/**
 * @param {string[]} argv arguments after the command's name
 * @param {Record<string, string | undefined>} env
 * @returns {Command}
 */
export function parseCommand(argv, env) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        profile: { type: "string", short: "p" },
        fields: { type: "string", short: "f" },
        expand: { type: "string", short: "e" },
        json: { type: "boolean" },
        service: { type: "string", short: "s" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const service = (values.service ?? env.MEDIA_INSPECT_URL ?? defaultService).replace(/\/+$/, "");
  const base = { query: {}, json: values.json === true, service };
  if (values.help) return { kind: "help", ...base };
  if (!isHttpUrl(service)) throw new UsageError(`--service must be an http(s) URL, got ${JSON.stringify(service)}`);
  const profile = values.profile;
  if (profile !== undefined && !Object.hasOwn(knownProfiles, profile)) {
    throw new UsageError(`--profile must be one of ${Object.keys(knownProfiles).join(", ")}, got ${JSON.stringify(profile)}`);
  }
  const query = {
    ...(profile !== undefined ? { profile: /** @type {Profile} */ (profile) } : {}),
    ...(values.fields !== undefined ? { fields: values.fields } : {}),
    ...(values.expand !== undefined ? { expand: values.expand } : {}),
  };
  if (positionals[0] === "batch") {
    if (positionals.length !== 2) throw new UsageError("batch takes one file: media-inspect batch <file>");
    if (values.json) throw new UsageError("batch always prints JSON lines: drop --json");
    return { kind: "batch", target: positionals[1], ...base, query };
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? "no URL given" : `one URL at a time (got ${positionals.length}); use batch <file> for more`);
  return { kind: "inspect", target: positionals[0], ...base, query };
}

/** @param {string} text */
function isHttpUrl(text) {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
