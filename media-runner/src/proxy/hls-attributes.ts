/**
 * Strict reader of an HLS attribute list (RFC 8216 4.2): NAME=value pairs separated by single commas, names in
 * [A-Z0-9-], values either "quoted" or bare. Anything ffmpeg could read differently from this model is refused
 * rather than guessed at: a repeated name (ffmpeg keeps the last, a rewriter the first), a backslash inside quotes
 * (ffmpeg's ff_parse_key_value treats it as an escape, the RFC does not), whitespace or a lowercase name (ffmpeg
 * skips or keeps them), an unterminated quote. One linear pass; the caller bounds the line length.
 */
import { RunnerError } from "../errors.ts";

export interface AttributeValue {
  value: string;
  quoted: boolean;
}

/** More attributes than any tag defines (EXT-X-STREAM-INF has about 15). */
export const maxAttributesPerList = 64;

const isNameChar = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d;

function refuse(reason: string): RunnerError {
  return new RunnerError("CORRUPT_MEDIA", `the playlist has a malformed attribute list: ${reason}`);
}

export function parseAttributeList(text: string): Map<string, AttributeValue> {
  const attributes = new Map<string, AttributeValue>();
  let at = 0;
  while (at < text.length) {
    const nameStart = at;
    while (at < text.length && isNameChar(text.charCodeAt(at))) at++;
    if (at === nameStart || text[at] !== "=") throw refuse("an attribute name is not of [A-Z0-9-] followed by =");
    const name = text.slice(nameStart, at);
    if (attributes.has(name)) throw refuse(`the attribute ${name} appears twice`);
    if (attributes.size >= maxAttributesPerList) throw refuse(`more than ${maxAttributesPerList} attributes`);
    at++;
    let value: string;
    let quoted = false;
    if (text[at] === '"') {
      const close = text.indexOf('"', at + 1);
      if (close < 0) throw refuse(`the value of ${name} has no closing quote`);
      value = text.slice(at + 1, close);
      if (value.includes("\\")) throw refuse(`the value of ${name} holds a backslash`);
      quoted = true;
      at = close + 1;
    } else {
      let end = text.indexOf(",", at);
      if (end < 0) end = text.length;
      value = text.slice(at, end);
      for (let i = 0; i < value.length; i++) {
        const code = value.charCodeAt(i);
        if (code <= 0x20 || code === 0x22 || code === 0x5c || code === 0x7f) throw refuse(`the bare value of ${name} holds a space or a quote`);
      }
      at = end;
    }
    attributes.set(name, { value, quoted });
    if (at === text.length) break;
    if (text[at] !== ",") throw refuse(`text follows the value of ${name}`);
    at++;
    if (at === text.length) throw refuse("the list ends with a comma");
  }
  return attributes;
}
