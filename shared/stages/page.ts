import { defineStage } from "./definition.ts";

/** Web page facts from the head: OpenGraph, Twitter cards, JSON-LD and plain HTML, read with the probe's bytes. */
export const page = defineStage({
  name: "page",
  categories: ["webpage"],
  engines: ["inline"],
  group: "core",
  fills: ["page"],
});
