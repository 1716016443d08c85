import { DurableObject } from "cloudflare:workers";
export { MediaRunnerContainer } from "./runner/media-runner-container";
export class ResourceObject extends DurableObject {}
export default { async fetch() { return new Response("ok"); } } satisfies ExportedHandler<Env>;
