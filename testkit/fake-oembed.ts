import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closable } from "./closable.ts";

/**
 * A loopback stand-in for providers' oEmbed endpoints, reached through OEMBED_BASE_URL as
 * `${base}/${provider host}${endpoint path}?url=...&format=json`. Speaks oEmbed 1.0 JSON. The media URL
 * picks the behaviour: ids containing "private" answer 401 (embedding disabled), "gone" 404, and the
 * host `down.provider` (or ids with "down") 503; ids with "Quot" get a title full of HTML metacharacters.
 */
export async function startFakeOembed() {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://oembed");
    requests.push(url.pathname + url.search);
    const media = url.searchParams.get("url") ?? "";
    const host = url.pathname.split("/")[1] ?? "";
    if (!media || url.searchParams.get("format") !== "json") return send(res, 400, { error: "url and format=json required" });
    if (media.includes("private") || media.includes("PrivateVid1")) return send(res, 401, { error: "Unauthorized" });
    if (media.includes("gone") || media.includes("GoneVideo01")) return send(res, 404, { error: "Not Found" });
    if (media.includes("down") || media.includes("DownVideo01")) return send(res, 503, { error: "Unavailable" });
    // "Flaky": the first request for a media answers 503, later ones succeed (a provider outage that ends).
    if (media.includes("Flaky") && requests.filter((r) => r.includes(encodeURIComponent(media))).length === 1) {
      return send(res, 503, { error: "Unavailable" });
    }
    // Ids with "Hostile": a document posing as a trusted provider, with script html and javascript: URLs.
    if (media.includes("Hostile")) {
      return send(res, 200, {
        type: "video", version: "1.0", title: "Totally YouTube", provider_name: "YouTube", provider_url: "javascript:alert(1)",
        author_url: "javascript:alert(2)", thumbnail_url: "javascript:alert(3)", width: 640, height: 360,
        html: `<script>alert(document.cookie)</script><iframe src="javascript:alert(4)"></iframe>`,
      });
    }
    const provider = host.includes("youtube") ? "YouTube" : host.includes("vimeo") ? "Vimeo" : host.includes("spotify") ? "Spotify" : host;
    send(res, 200, {
      type: provider === "Spotify" ? "rich" : "video",
      version: "1.0",
      // Ids containing "Quot" get a title full of HTML metacharacters (escaping tests).
      title: media.includes("Quot") ? `Say "hi" <b>&</b> 'now' ${media.slice(-11)}` : `${provider} title for ${media.slice(-24)}`,
      author_name: "Test Author",
      provider_name: provider,
      provider_url: `https://${host}/`,
      thumbnail_url: `https://i.example.test/${provider.toLowerCase()}/thumb.jpg`,
      thumbnail_width: 480,
      thumbnail_height: 360,
      width: 640,
      height: 360,
      html: `<iframe src="https://player.example.test/embed" width="640" height="360"></iframe>`,
    });
  });
  const close = closable(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, requests, close };
}

function send(res: import("node:http").ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
