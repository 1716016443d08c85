export { HeadCollector, type HeadElements, type HeadLink, type HeadMeta } from "./head-elements.ts";
export { pageFacts, type PageFacts } from "./page-facts.ts";
export type { MediaCandidate } from "./media-candidates.ts";
export { collectHeadTag, collectHeadText, type HeadTag } from "./head-tags.ts";
