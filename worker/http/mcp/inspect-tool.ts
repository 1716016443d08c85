import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { expandNames, InspectBody, InspectQuery, InspectResponse, profiles } from "../../../shared/schemas/inspect.ts";
import { namespaceNames } from "../../../shared/schemas/inspect-data.ts";
import { errors } from "../../errors/api-error.ts";
import { inspectUrl } from "../../service/inspect-service.ts";
import { hostOf } from "../oembed-handler.ts";
import { inspectionSummary } from "./summary.ts";
import { storedPreviewImage } from "./stored-image.ts";
import type { ToolContext } from "./tool-context.ts";
import { answerTool, dataResult, spendOneInspection } from "./tool-results.ts";

/**
 * The profiles whose answer is the inspect envelope (InspectResponse), the tool's one output schema; `embed`
 * answers another shape (oembed_for_url covers embedding).
 */
const toolProfiles = profiles.filter((p) => p !== "embed") as ["fast", "standard", "full"];
/** `html` belongs to the embed profile and `rawHeaders` to debug=true, neither of which the tool offers. */
const toolExpand = expandNames.filter((e) => e !== "html" && e !== "rawHeaders") as ["embedHtml", "storyboard", "waveform"];

export const inspectInput = {
  url: InspectBody.shape.url.describe("The public http(s) URL of a video, audio file, image, stream manifest or media page"),
  profile: z.enum(toolProfiles).optional().describe(
    "fast: the first bytes only, no previews; standard (default): facts now, previews may still be running (then a job id to poll); full: waits for every enrichment, thumbnail included",
  ),
  fields: z.array(z.enum(namespaceNames)).optional().describe("Only these namespaces of data (default: all the profile shows)"),
  expand: z.array(z.enum(toolExpand)).optional().describe("embedHtml: playback.html in fast; storyboard: a video's sprite and WebVTT track; waveform: an audio file's peaks and loudness"),
};

export function registerInspectTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "inspect_media_url",
    {
      title: "Inspect a media URL",
      description:
        "Inspects a URL without downloading it: MIME type, category, dimensions, duration, codecs, whether each browser plays it, " +
        "thumbnail, palette and provider data. structuredContent is the REST API's answer (POST /api/v1/inspect); a generated " +
        "thumbnail is attached as an image.",
      inputSchema: inspectInput,
      outputSchema: InspectResponse.shape,
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
    },
    (args) =>
      answerTool(ctx, "inspect_media_url", async () => {
        const parsed = InspectQuery.safeParse({ profile: args.profile, fields: args.fields?.join(","), expand: args.expand?.join(",") });
        if (!parsed.success) throw errors.invalidParameter(parsed.error.issues.map((i) => i.message).join("; "));
        ctx.note({ profile: parsed.data.profile, ...(hostOf(args.url) ? { targetHost: hostOf(args.url) } : {}) });
        await spendOneInspection(ctx);
        const outcome = await inspectUrl(ctx.env, { url: args.url }, parsed.data, ctx.baseUrl, ctx.caller);
        ctx.note({ responseSource: outcome.responseSource, ...(outcome.pendingJobId ? { jobId: outcome.pendingJobId } : {}) });
        const body = outcome.body as InspectResponse;
        const thumbnail = await storedPreviewImage(ctx.env, body.data.preview?.thumbnail?.url);
        return dataResult(body, inspectionSummary(body, ctx.baseUrl), [thumbnail]);
      }),
  );
}
