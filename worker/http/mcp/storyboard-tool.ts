import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { storyboardCues } from "../../../shared/media/storyboard-plan.ts";
import { Storyboard } from "../../../shared/shapes/media-data.ts";
import { InspectBody, JobBrief, type InspectQuery, type InspectResponse } from "../../../shared/schemas/inspect.ts";
import { ApiError } from "../../errors/api-error.ts";
import { inspectUrl } from "../../service/inspect-service.ts";
import { hostOf } from "../oembed-handler.ts";
import { absoluteUrl, storedPreviewImage } from "./stored-image.ts";
import type { ToolContext } from "./tool-context.ts";
import { answerTool, dataResult, spendOneInspection } from "./tool-results.ts";

const StoryboardCue = z.object({
  start: z.number().meta({ description: "Seconds into the video this tile stands for" }),
  end: z.number(),
  tile: z.number().int().meta({ description: "Index of the tile in the sprite (left to right, top to bottom); tiles showing one frame share a cue" }),
  x: z.number().int().meta({ description: "The tile's left edge in the sprite, pixels" }),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
});

export const storyboardOutput = {
  status: z.enum(["complete", "pending"]).meta({ description: "pending: the storyboard is still being made; poll the job or call again" }),
  storyboard: Storyboard.optional().meta({ description: "The API's preview.storyboard (service-relative URLs)" }),
  spriteUrl: z.string().optional().meta({ description: "The sprite (WebP), absolute" }),
  vttUrl: z.string().optional().meta({ description: "The WebVTT thumbnails track, absolute" }),
  cues: z.array(StoryboardCue).optional().meta({ description: "The track's cues: one tile of the sprite per time span" }),
  job: JobBrief.optional(),
};

/** A storyboard is made by the `full` inspection with expand=storyboard: the same request as the REST form. */
const storyboardQuery: InspectQuery = { profile: "full", expand: ["storyboard"], fields: undefined, debug: false, maxAge: undefined };

export function registerStoryboardTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "get_storyboard",
    {
      title: "Get a video's storyboard",
      description:
        "A video's storyboard: one sprite image of evenly spaced frames (attached as an image) and the cue list saying which " +
        "tile shows which seconds. The same as POST /api/v1/inspect?profile=full&expand=storyboard.",
      inputSchema: { url: InspectBody.shape.url.describe("The public http(s) URL of a video") },
      outputSchema: storyboardOutput,
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
    },
    (args) =>
      answerTool(ctx, "get_storyboard", async () => {
        ctx.note({ profile: "full", ...(hostOf(args.url) ? { targetHost: hostOf(args.url) } : {}) });
        await spendOneInspection(ctx);
        const outcome = await inspectUrl(ctx.env, { url: args.url }, storyboardQuery, ctx.baseUrl, ctx.caller);
        ctx.note({ responseSource: outcome.responseSource });
        const body = outcome.body as InspectResponse;
        const storyboard = body.data.preview?.storyboard;
        if (body.processing.failedStages?.includes("preview:storyboard")) {
          throw new ApiError(502, "BAD_GATEWAY", "The storyboard could not be made from this video (its frames could not be decoded).");
        }
        if (storyboard === undefined) {
          const what = body.data.semantic?.semanticType ?? body.data.semantic?.kind ?? "not video";
          throw new ApiError(404, "NOT_FOUND", `No storyboard for this URL: it is ${what}; storyboards are made for video files.`);
        }
        if (storyboard === null) {
          const job = body.job;
          return dataResult({ status: "pending", ...(job ? { job } : {}) },
            `The storyboard is still being made.${job ? ` Poll get_inspection_job with id ${job.id}, or call get_storyboard again.` : " Call get_storyboard again."}`);
        }
        const cues = storyboardCues(storyboard);
        const spriteUrl = absoluteUrl(storyboard.url, ctx.baseUrl);
        const vttUrl = absoluteUrl(storyboard.vtt, ctx.baseUrl);
        const text = `Storyboard: ${storyboard.tiles} tiles of ${storyboard.tileWidth}x${storyboard.tileHeight}, one every ${storyboard.interval} s, ` +
          `${storyboard.columns} per row (the attached sprite).\nSprite: ${spriteUrl}\nWebVTT: ${vttUrl}`;
        return dataResult({ status: "complete", storyboard, spriteUrl, vttUrl, cues }, text, [await storedPreviewImage(ctx.env, storyboard.url)]);
      }),
  );
}
