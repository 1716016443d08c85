// Runs in workerd before each Worker test file: the set-up makes the generated media in the background
// (test/worker/global-setup.ts), so a file waits here until every fixture it may fetch is on disk.
import { fixturesReady } from "../../testkit/worker/fixture-facts.ts";

await fixturesReady();
