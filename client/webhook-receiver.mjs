// Receives `inspection.completed` webhooks and verifies their signature with the Standard Webhooks reference
// library. Run: WEBHOOK_SECRET=whsec_... node client/webhook-receiver.mjs   (listens on 127.0.0.1:8791)
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

/** @typedef {import("./index.ts").WebhookEvent} WebhookEvent */

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("WEBHOOK_SECRET is not set: give the service's secret (whsec_...)");
  process.exit(2);
}
const webhook = new Webhook(secret);
const port = Number(process.env.RECEIVER_PORT ?? 8791);

createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  try {
    // throws on a bad signature or a stale timestamp
    const event = /** @type {WebhookEvent} */ (webhook.verify(body, /** @type {Record<string, string>} */ (req.headers)));
    console.log(`${event.type} ${event.data.status} ${event.data.url} ${event.data.result?.processing.status}`);
    res.writeHead(204).end();
  } catch (error) {
    console.log(`rejected: ${error instanceof Error ? error.message : error}`);
    res.writeHead(400).end();
  }
}).listen(port, "127.0.0.1", () => console.log(`webhook receiver on http://127.0.0.1:${port}/hook`));
