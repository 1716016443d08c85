/** One fixture lane in a process of its own (see testkit/fixture-lanes.ts): argv is the module, the lane, the root. */
import { pathToFileURL } from "node:url";
import type { Lanes } from "./fixture-lanes.ts";

const [module, name, root] = process.argv.slice(2) as [string, string, string];
const { lanes } = (await import(pathToFileURL(module).href)) as { lanes: Lanes };
const lane = lanes[name];
if (!lane) throw new Error(`no fixture lane ${name} in ${module}`);
await lane(root);
