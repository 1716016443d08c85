import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InspectBody } from "../../../shared/schemas/inspect.ts";
import { oembedMaxDimension, OembedPhoto, OembedVideo } from "../../../shared/schemas/oembed-document.ts";
import { oembedDocument } from "../oembed-document.ts";
import { hostOf } from "../oembed-handler.ts";
import { inspectForSharing } from "../oembed-inspection.ts";
import type { ToolContext } from "./tool-context.ts";
import { answerTool, dataResult, spendOneInspection } from "./tool-results.ts";

/**
 * The oEmbed document (a discriminated union of video and photo) as one object schema, as MCP output schemas must
 * be: every field of both types, `type` naming which, the fields only one type has optional.
 */
export const oembedOutput = {
  ...OembedVideo.shape,
  ...OembedPhoto.shape,
  type: z.enum(["video", "photo"]),
  html: OembedVideo.shape.html.optional(),
  url: OembedPhoto.shape.url.optional(),
};

const dimension = (what: string) =>
  z.number().int().min(1).max(oembedMaxDimension).optional()
    .describe(`Largest ${what} the consumer can show (pixels); the document is scaled down to fit, never up`);

export function registerOembedTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "oembed_for_url",
    {
      title: "oEmbed document for a media URL",
      description:
        "The oEmbed 1.0 document of a video, audio or image URL: a player's HTML (video, audio) or the image URL (photo), " +
        "width, height, title and thumbnail. The same as GET /oembed?url=...",
      inputSchema: { url: InspectBody.shape.url.describe("The public http(s) URL of the media"), maxwidth: dimension("width"), maxheight: dimension("height") },
      outputSchema: oembedOutput,
      annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
    },
    (args) =>
      answerTool(ctx, "oembed_for_url", async () => {
        ctx.note({ profile: "oembed", ...(hostOf(args.url) ? { targetHost: hostOf(args.url) } : {}) });
        await spendOneInspection(ctx);
        const shared = await inspectForSharing(ctx.env, args.url, ctx.baseUrl, ctx.caller);
        ctx.note({ responseSource: shared.outcome.responseSource });
        const doc = oembedDocument(shared.media, { maxwidth: args.maxwidth, maxheight: args.maxheight, cacheAge: shared.cacheAge, baseUrl: ctx.baseUrl, url: args.url });
        const text = `oEmbed ${doc.type} ${doc.width}x${doc.height}${doc.title ? `: ${JSON.stringify(doc.title)}` : ""}` +
          (doc.thumbnail_url ? `\nThumbnail: ${doc.thumbnail_url}` : "") + `\nCache for ${doc.cache_age} s.`;
        return dataResult(doc, text);
      }),
  );
}
