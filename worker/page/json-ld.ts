/**
 * Facts from JSON-LD blocks (schema.org). JSON.parse is linear; the walk over the result is bounded in
 * nodes and depth, so a deeply nested or huge graph costs a bounded amount of work.
 */

export interface JsonLdMedia {
  kind: "video" | "audio";
  contentUrl?: string;
  embedUrl?: string;
  encodingFormat?: string;
}

export interface JsonLdFacts {
  title?: string;
  description?: string;
  siteName?: string;
  image?: string;
  author?: string;
  publishedAt?: string;
  url?: string;
  lang?: string;
  media: JsonLdMedia[];
}

/** schema.org objects looked at across all blocks. */
export const maxJsonLdNodes = 500;
/** Nesting followed (graph -> article -> video -> thumbnail ..., or lists of lists of a value); deeper says nothing. */
export const maxJsonLdDepth = 8;

type Node = Record<string, unknown>;

export function readJsonLd(blocks: readonly string[]): JsonLdFacts {
  const nodes: Node[] = [];
  for (const block of blocks) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(block);
    } catch {
      continue; // a broken block says nothing; the others still count
    }
    collect(parsed, 0, nodes);
  }
  const facts: JsonLdFacts = { media: [] };
  // The first node that describes the page's content (not the site or a breadcrumb) gives the page facts.
  const main = nodes.find((n) => !hasType(n, ["WebSite", "Organization", "BreadcrumbList", "Person", "ImageObject", "SearchAction"]));
  if (main) {
    set(facts, "title", text(main.headline) ?? text(main.name));
    set(facts, "description", text(main.description));
    set(facts, "image", imageUrl(main.image) ?? text(main.thumbnailUrl));
    set(facts, "author", personName(main.author) ?? personName(main.creator));
    set(facts, "publishedAt", text(main.datePublished) ?? text(main.uploadDate) ?? text(main.dateCreated));
    set(facts, "url", text(main.url));
    set(facts, "lang", text(main.inLanguage));
    set(facts, "siteName", personName(main.publisher));
  }
  set(facts, "siteName", facts.siteName ?? text(nodes.find((n) => hasType(n, ["WebSite"]))?.name));
  for (const node of nodes) {
    const kind = hasType(node, ["VideoObject", "Movie", "Clip", "Episode"]) ? "video" : hasType(node, ["AudioObject", "PodcastEpisode"]) ? "audio" : undefined;
    if (!kind) continue;
    const media: JsonLdMedia = { kind };
    set(media, "contentUrl", text(node.contentUrl));
    set(media, "embedUrl", text(node.embedUrl));
    set(media, "encodingFormat", text(node.encodingFormat));
    if (media.contentUrl || media.embedUrl) facts.media.push(media);
  }
  return facts;
}

/** Objects in document order: the value itself, @graph members, and nested objects, bounded. */
function collect(value: unknown, depth: number, out: Node[]): void {
  if (out.length >= maxJsonLdNodes || depth > maxJsonLdDepth || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (out.length >= maxJsonLdNodes) return;
      collect(item, depth + 1, out);
    }
    return;
  }
  const node = value as Node;
  if (node["@type"] !== undefined) out.push(node);
  for (const [key, child] of Object.entries(node)) {
    if (out.length >= maxJsonLdNodes) return;
    if (key !== "@context" && child !== null && typeof child === "object") collect(child, depth + 1, out);
  }
}

function hasType(node: Node, types: readonly string[]): boolean {
  const type = node["@type"];
  const list = Array.isArray(type) ? type : [type];
  return list.some((t) => typeof t === "string" && types.includes(t.replace(/^(https?:\/\/)?schema\.org\//, "")));
}

/**
 * A list stands for its first item; a list of lists is unwrapped at most maxJsonLdDepth levels, in a loop (a
 * value is only ever as deep as the page makes it, and recursing once per level would let 20,000 levels of
 * `[` overflow the stack). Deeper than that, the value says nothing.
 */
function firstItem(value: unknown): unknown {
  for (let level = 0; Array.isArray(value); level++) {
    if (level >= maxJsonLdDepth) return undefined;
    value = value[0];
  }
  return value;
}

function text(raw: unknown): string | undefined {
  const value = firstItem(raw);
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return undefined;
  const clean = value.replace(/\s+/g, " ").trim();
  return clean || undefined;
}

function imageUrl(raw: unknown): string | undefined {
  const value = firstItem(raw);
  if (value && typeof value === "object") return text((value as Node).url) ?? text((value as Node).contentUrl);
  return text(value);
}

function personName(raw: unknown): string | undefined {
  const value = firstItem(raw);
  if (value && typeof value === "object") return text((value as Node).name);
  return text(value);
}

function set<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined && target[key] === undefined) target[key] = value;
}
