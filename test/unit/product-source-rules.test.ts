/**
 * Two rules of the product's source, checked on the parsed code (comments and strings told apart by the
 * TypeScript parser, not by a line grep):
 * - no type-assertion escapes (`as any`, `as never`, `as unknown as`, `<any>`): a mismatch between a value and
 *   its declared type is fixed in the types, not hidden;
 * - comments cite only what the repository holds: no issue numbers (`#12`, "issue 31"), no sections (`§`) or
 *   names of the team's documents kept outside the repository (SPEC, DESIGN, STYLE, TOOLCHAIN).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const scriptFile = /\.(ts|mts|cts|js|mjs|cjs)$/;

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (keep(name)) out.push(full);
    }
  };
  walk(join(root, dir));
  return out;
}

const parsed = new Map<string, ts.SourceFile>();
/** Each file parsed once for both checks. */
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    const kind = /ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
    source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, kind);
    parsed.set(file, source);
  }
  return source;
}

/** Type assertions that turn the checker off: `x as any`, `x as never`, `x as unknown as T`, `<any>x`. */
export function assertionEscapes(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const unwrap = (node: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(node) ? unwrap(node.expression) : node);
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const kind = node.type.kind;
      const inner = unwrap(node.expression);
      const escape = kind === ts.SyntaxKind.AnyKeyword || kind === ts.SyntaxKind.NeverKeyword
        || ((ts.isAsExpression(inner) || ts.isTypeAssertionExpression(inner)) && inner.type.kind === ts.SyntaxKind.UnknownKeyword);
      if (escape) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${line + 1}: ${node.getText(source).replace(/\s+/g, " ").slice(0, 120)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The comments of a parsed file, once each, with their lines: the trivia at both edges of every node (the
 * comments between a node and the next token, before and after a line break, included).
 */
function commentsOf(source: ts.SourceFile): { line: number; text: string }[] {
  const text = source.getFullText();
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    for (const at of [node.pos, node.end]) {
      collect(ts.getLeadingCommentRanges(text, at));
      collect(ts.getTrailingCommentRanges(text, at));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...seen].map(([pos, body]) => ({ line: source.getLineAndCharacterOfPosition(pos).line + 1, text: body }));
}

/** Comments of a stylesheet or an HTML page (our own files, read whole). */
function markupComments(file: string): { line: number; text: string }[] {
  const text = readFileSync(file, "utf8");
  const pattern = file.endsWith(".html") ? /<!--[\s\S]*?-->/g : /\/\*[\s\S]*?\*\//g;
  return [...text.matchAll(pattern)].map((m) => ({ line: text.slice(0, m.index).split("\n").length, text: m[0] }));
}

/** What a comment may not cite; `&#39;` (an HTML entity) and `#000000` (a colour) are not issue numbers. */
const outsideCitations: [string, RegExp][] = [
  ["an issue number", /\bissues? ?#?\d+/i],
  ["an issue reference", /(?<!&)#\d{1,5}(?![\da-fA-F])/],
  ["a section sign", /§/],
  ["a document outside the repository", /\b(SPEC|DESIGN|STYLE|TOOLCHAIN)(\.md)?\b/],
];

export function outsideCitationsIn(comments: { line: number; text: string }[]): string[] {
  const found: string[] = [];
  for (const { line, text } of comments) {
    for (const [what, pattern] of outsideCitations) {
      const hit = pattern.exec(text);
      if (hit) found.push(`${line}: ${what} (${hit[0]})`);
    }
  }
  return found;
}

function byFile(files: string[], check: (file: string) => string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of files) {
    const hits = check(file);
    if (hits.length > 0) found[relative(root, file)] = hits;
  }
  return found;
}

describe("product source rules", () => {
  it("has no type-assertion escapes in product code", () => {
    const files = ["worker", "shared", "media-runner/src", "client", "public/playground"]
      .flatMap((dir) => filesUnder(dir, (name) => scriptFile.test(name)));
    expect(files.length).toBeGreaterThan(100);
    expect(byFile(files, (f) => assertionEscapes(parse(f)))).toEqual({});
  }, 120_000);

  it("cites in comments only what the repository holds", () => {
    const dirs = ["worker", "shared", "media-runner/src", "client", "public", "bench", "scripts"];
    const scripts = dirs.flatMap((dir) => filesUnder(dir, (name) => scriptFile.test(name)));
    const markup = dirs.flatMap((dir) => filesUnder(dir, (name) => /\.(css|html)$/.test(name)));
    expect(byFile(scripts, (f) => outsideCitationsIn(commentsOf(parse(f))))).toEqual({});
    expect(byFile(markup, (f) => outsideCitationsIn(markupComments(f)))).toEqual({});
  }, 120_000);

  it("catches each kind of escape and citation (the checks can fail)", () => {
    const sample = ts.createSourceFile("sample.ts", [
      "const a = x as any;",
      "const b = (y as unknown) as string;",
      "const c = f(z as never);",
      "const d = <any>w;",
      "const e = v as string; // fine",
      'const s = "as any in a string";',
    ].join("\n"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    expect(assertionEscapes(sample).map((hit) => hit.split(":")[0])).toEqual(["1", "2", "3", "4"]);

    const comments = [
      "// see issue 31", "// fixed upstream (owner/repo#5360)", "/* SPEC §4 */", "// DESIGN: one stage",
      '// "#000000" for a blank image, &#39; is a quote', "// RFC 8216 section 4.2 (a public standard)",
    ].map((text, i) => ({ line: i + 1, text }));
    expect(outsideCitationsIn(comments).map((hit) => hit.split(":")[0])).toEqual(["1", "2", "3", "3", "4"]);
  });
});
