import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closable } from "./closable.ts";

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number;
}

/**
 * A loopback webhook receiver. `/ok/...` accepts (204); `/fail2/...` answers 500 to the first two deliveries
 * for that path, then 200; `/gone/...` always answers 410. Records every delivery with the status it answered.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? "/";
    const before = received.filter((r) => r.path === path).length;
    const status = path.startsWith("/gone/") ? 410 : path.startsWith("/fail2/") && before < 2 ? 500 : path.startsWith("/ok/") ? 204 : 200;
    received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString(), answered: status });
    res.writeHead(status);
    res.end();
  });
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, received, close };
}
