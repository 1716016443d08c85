/**
 * A manifest we refuse or cannot read, with a reason for the caller. The inspection turns it into a 4xx (the
 * manifest itself is bad) or a failed stage (a nested playlist is), never a 5xx.
 */
export class ManifestError extends Error {
  constructor(
    /** What the caller can act on, e.g. "the playlist has more than 30000 segments". */
    readonly reason: string,
  ) {
    super(reason);
    this.name = "ManifestError";
  }
}

/** A variant playlist the origin does not serve (404, 5xx): the master's own facts still stand. */
export class VariantUnavailableError extends ManifestError {}
