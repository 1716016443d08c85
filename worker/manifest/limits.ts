/**
 * Hard limits on what a streaming manifest may make us do. Manifests are untrusted text that names other
 * URLs; each bound below turns a hostile input into a ManifestError with its reason, never a hang.
 */

/** Largest manifest (master, media playlist or MPD) read; 100,000 segment lines are about 2.5 MB. */
export const maxManifestBytes = 2 * 1024 * 1024;
/** Longest playlist line; URIs with signed tokens stay well below this. */
export const maxHlsLineChars = 8 * 1024;
/** Attribute names are short enumerated strings (RFC 8216 section 4.2). */
export const maxAttributeNameChars = 64;
/**
 * Commas inside one quoted attribute value (CODECS lists have a few). m3u8-parser splits attribute lists with a
 * regex that rescans from every comma, so this bound keeps its work linear in the line length.
 */
export const maxQuotedCommas = 32;
/** Longest run of whitespace inside a quoted value (the parser trims with a regex that is quadratic in it). */
export const maxWhitespaceRun = 16;
/** Variants (EXT-X-STREAM-INF, DASH video Representations) in one manifest. */
export const maxVariants = 64;
/** Alternative renditions (EXT-X-MEDIA, DASH audio/text Representations). */
export const maxRenditions = 64;
/** Media segments in one media playlist (10 hours of 2 s segments is 18,000). */
export const maxSegments = 30_000;
/** Master -> media playlist. A playlist reached from a media playlist is a loop or nesting we refuse. */
export const maxManifestDepth = 2;
/** DASH structure bounds (mpd-parser multiplies BaseURLs across levels and walks every Period). */
export const maxDashPeriods = 32;
export const maxDashBaseUrls = 16;
export const maxDashAdaptationSets = 64;
/**
 * Element nesting of an MPD (checked in one linear pass before the XML parser runs). Real MPDs nest about 7 deep
 * (MPD > Period > AdaptationSet > Representation > SegmentTemplate > SegmentTimeline > S; event payloads a few
 * more); the XML parser's work grows faster than linearly with nesting.
 */
export const maxDashXmlDepth = 32;
/** Longest chapter file (WebVTT or JSON) parsed: 512 chapters of WebVTT take about 30 KB. */
export const maxChapterFileChars = 256 * 1024;
