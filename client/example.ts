// Inspect a URL with the typed client; on a 202, poll the job it names until it is done.
// Run: npx tsx client/example.ts [API base, default http://127.0.0.1:8787] [URL to inspect]
import { createClient } from "./index.ts";
import { ErrorBody } from "../shared/schemas/error.ts";

const base = process.argv[2] ?? "http://127.0.0.1:8787";
const target = process.argv[3] ?? "http://127.0.0.1:8790/video.mp4";
const api = createClient(base);

const res = await api.api.v1.inspect.$post({ query: { profile: "standard" }, json: { url: target } });
if (!res.ok) {
  // Error statuses share one envelope (ErrorBody); hono/client types only the success bodies, so the body is
  // checked against the envelope's schema rather than asserted.
  const { error } = ErrorBody.parse(await res.json());
  console.error(`${res.status} ${error.code}: ${error.message}`);
  process.exit(1);
}
const first = await res.json();
if (!("processing" in first)) throw new Error("profile=standard answers the inspect envelope");
console.log(`${res.status} ${first.data.semantic?.semanticType} ${first.data.identity?.mime} ${first.processing.status}`);

let result = first;
if (first.job && first.processing.status !== "complete") {
  const retryAfterMs = Number(res.headers.get("retry-after") ?? "1") * 1000;
  for (let attempt = 0; attempt < 60; attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(retryAfterMs, 1000)));
    const poll = await api.api.v1.job[":id"].$get({ param: { id: first.job.id } });
    if (poll.status !== 200) throw new Error(`job poll answered ${poll.status}`);
    const { job, data } = await poll.json();
    if (job.status === "completed" && data) {
      result = data;
      break;
    }
    if (job.status === "failed") throw new Error("the job failed");
  }
}

const video = result.data.metadata?.video;
console.log(`complete=${result.processing.status === "complete"} duration=${video?.duration?.seconds} fps=${video?.fps} thumbnail=${result.data.preview?.thumbnail?.url}`);
