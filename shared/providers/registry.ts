import { dailymotion } from "./definitions/dailymotion.ts";
import { loom } from "./definitions/loom.ts";
import { soundcloud } from "./definitions/soundcloud.ts";
import { spotify } from "./definitions/spotify.ts";
import { streamable } from "./definitions/streamable.ts";
import { tiktok } from "./definitions/tiktok.ts";
import { twitch } from "./definitions/twitch.ts";
import { vimeo } from "./definitions/vimeo.ts";
import { wistia } from "./definitions/wistia.ts";
import { youtube } from "./definitions/youtube.ts";
import type { ProviderDefinition } from "./provider-definition.ts";

/** Every provider with URL-pattern detection. Add a provider by adding its definition file here. */
export const providerDefinitions: readonly ProviderDefinition[] = [
  youtube, vimeo, spotify, soundcloud, dailymotion, twitch, tiktok, wistia, loom, streamable,
];

const dnsLabelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function indexBy(keysOf: (d: ProviderDefinition) => readonly string[]): ReadonlyMap<string, ProviderDefinition> {
  const map = new Map<string, ProviderDefinition>();
  for (const definition of providerDefinitions) {
    for (const key of keysOf(definition)) {
      const owner = map.get(key);
      // Two providers claiming one host would make detection depend on array order.
      if (owner) throw new Error(`provider registry: ${key} claimed by both ${owner.name} and ${definition.name}`);
      map.set(key, definition);
    }
  }
  return map;
}

const byHost = indexBy((d) => d.hosts);
const bySubdomainParent = indexBy((d) => d.subdomainsOf ?? []);
const byScheme = indexBy((d) => (d.uriScheme ? [d.uriScheme] : []));

/**
 * The provider owning this URL's host: an exact hostname match, or exactly one DNS label under a
 * `subdomainsOf` domain. Never a suffix or substring test, so `youtube.com.evil.example` and
 * `evil-youtube.com` find nothing. Non-http URLs are looked up by scheme (`spotify:`).
 */
export function definitionFor(url: URL): ProviderDefinition | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return byScheme.get(url.protocol);
  const exact = byHost.get(url.hostname);
  if (exact) return exact;
  const dot = url.hostname.indexOf(".");
  if (dot <= 0 || !dnsLabelPattern.test(url.hostname.slice(0, dot))) return undefined;
  return bySubdomainParent.get(url.hostname.slice(dot + 1));
}
