export * from "./error.ts";
export * from "./stages.ts";
export * from "./data.ts";
export * from "./inspect.ts";
export * from "./job.ts";
export * from "./record.ts";
