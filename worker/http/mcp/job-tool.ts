import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { JobResource } from "../../../shared/schemas/job.ts";
import { getJob } from "../../service/job-service.ts";
import { inspectionSummary } from "./summary.ts";
import { storedPreviewImage } from "./stored-image.ts";
import type { ToolContext } from "./tool-context.ts";
import { answerTool, dataResult } from "./tool-results.ts";

/** Longest job id read (ids are far shorter; a longer one is unknown anyway). */
const maxJobIdLength = 200;

export function registerJobTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "get_inspection_job",
    {
      title: "Get an inspection job",
      description:
        "The state of the background enrichments of an inspection (the job id inspect_media_url names while previews are still " +
        "running): status, progress, and once completed the standard-profile result with its thumbnail. Same as GET /api/v1/job/{id}.",
      inputSchema: { id: z.string().min(1).max(maxJobIdLength).describe("The job id from inspect_media_url (structuredContent.job.id)") },
      outputSchema: JobResource.shape,
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    (args) =>
      answerTool(ctx, "get_inspection_job", async () => {
        // Polling a job reads what an inspection already paid for: not counted, as GET /api/v1/job/{id} is not.
        ctx.note({ jobId: args.id });
        const job = await getJob(ctx.env, args.id, ctx.baseUrl);
        const head = `Job ${job.job.id}: ${job.job.status} (${job.job.progress}%)` +
          (job.job.failures?.length ? `; failed: ${job.job.failures.map((f) => `${f.stage ?? "resource"}: ${f.error}`).join("; ")}` : "");
        const text = job.data ? `${head}\n${inspectionSummary(job.data, ctx.baseUrl)}` : head;
        return dataResult(job, text, [await storedPreviewImage(ctx.env, job.data?.data.preview?.thumbnail?.url)]);
      }),
  );
}
