export { project, type ProjectionOptions } from "./project.ts";
export { deriveProcessing } from "./processing.ts";
export { withoutEmptyObjects } from "./sanitize.ts";
export { framingPolicy } from "./framing.ts";
