/** Builds the media runner when its sources changed (scripts/runner-bundle.mjs) and returns its server's path. */
export function runnerBundle(root: string): Promise<string>;
