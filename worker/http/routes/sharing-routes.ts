/** The sharing routes: oEmbed, the share page, and the share id's page and card. */
import { createRoute, z } from "@hono/zod-openapi";
import { OembedDocument, OembedQuery, SharePageQuery } from "../../../shared/schemas/oembed-document.ts";
import { maxShareIdLength } from "../../../shared/format/share-id.ts";
import { errorExamples as e } from "../openapi-examples.ts";
import { errorResponse, one, requestIdHeader, methodNotAllowed, inspectByQueryErrors } from "./responses.ts";

/** The inspect errors a GET of a media URL can meet, with the oEmbed meaning of 404 (no document for this URL). */
const { 404: _remote404, 405: _inspect405, ...sharingErrors } = inspectByQueryErrors;
const notMedia = errorResponse(
  "NOT_FOUND: the URL is not video, audio or an image (a web page, for instance); RESOURCE_NOT_FOUND: the remote server answered 404",
  { notMedia: one("NOT_FOUND", { status: "error", error: { code: "NOT_FOUND", message: "No oEmbed document for this URL: it is a web page, not video, audio or an image." } }), resourceNotFound: one("RESOURCE_NOT_FOUND", e.resourceNotFound) },
);

export const oembedRoute = createRoute({
  method: "get",
  path: "/oembed",
  operationId: "getOembed",
  tags: ["Sharing"],
  summary: "oEmbed document of a media URL",
  description:
    "oEmbed 1.0 (oembed.com) for any video, audio or image URL: `video` with the service's player `html` for video and audio, " +
    "`photo` with `url` for images. Runs the standard inspection (counted by the per-client inspection limit); when previews are " +
    "still being made the document has no thumbnail yet and a short cache_age.",
  request: { query: OembedQuery },
  responses: {
    200: {
      description: "The oEmbed document",
      headers: { "X-Request-Id": requestIdHeader },
      content: { "application/json": { schema: OembedDocument, examples: {
        video: one("A video file: the service's player", {
          version: "1.0", type: "video", title: "clip.mp4", provider_name: "Media URL Inspection API", provider_url: "https://media.example/",
          cache_age: 86_340, width: 640, height: 360,
          html: '<video src="https://cdn.example/clip.mp4" controls preload="metadata" playsinline width="640" height="360"></video>',
          thumbnail_url: "https://media.example/api/v1/thumbnails/9f2c-320x180.webp", thumbnail_width: 320, thumbnail_height: 180,
        }),
        photo: one("An image", {
          version: "1.0", type: "photo", title: "photo.jpg", provider_name: "Media URL Inspection API", provider_url: "https://media.example/",
          cache_age: 86_340, url: "https://cdn.example/photo.jpg", width: 1280, height: 720,
        }),
      } } },
    },
    ...sharingErrors,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
    501: errorResponse("NOT_IMPLEMENTED: a format other than json (oEmbed 2.3.3: 501 Not Implemented)", {
      xml: one("format=xml", { status: "error", error: { code: "NOT_IMPLEMENTED", message: "format=xml is not implemented: this provider answers format=json only." } }),
    }),
  },
});

export const sharePageRoute = createRoute({
  method: "get",
  path: "/v",
  operationId: "getSharePage",
  tags: ["Sharing"],
  summary: "Share page of a media URL",
  description:
    "A small HTML page that plays the media with the service's player, with the oEmbed discovery link, OpenGraph and Twitter " +
    "player card tags, so a plain .mp4, .mp3 or .m3u8 link unfurls through the service. Strict CSP: no script, no style.",
  request: { query: SharePageQuery },
  responses: {
    200: { description: "The page", headers: { "X-Request-Id": requestIdHeader }, content: { "text/html": { schema: z.string() } } },
    ...sharingErrors,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});

const shareId = z.object({
  id: z.string().max(maxShareIdLength).meta({
    description: "The inspected URL as unpadded base64url (identity.shareUrl and the oEmbed document's share_url name it); no lookup, no file extension",
  }),
});
const badShareId = errorResponse("INVALID_URL: the id is not a base64url http(s) URL", { invalidUrl: one("INVALID_URL", e.invalidUrl) });

export const shareByIdRoute = createRoute({
  method: "get",
  path: "/v/{id}",
  operationId: "getSharePageById",
  tags: ["Sharing"],
  summary: "Share page of a media URL, by id",
  description: "The share page of GET /v at an address with no query and no file extension, which unfurlers fetch " +
    "(some refuse a link whose query ends in .mp4 or .mp3 without fetching it). The page's og:url is this address.",
  request: { params: shareId },
  responses: {
    200: { description: "The page", headers: { "X-Request-Id": requestIdHeader }, content: { "text/html": { schema: z.string() } } },
    ...sharingErrors,
    400: badShareId,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});

export const shareCardRoute = createRoute({
  method: "get",
  path: "/v/{id}/card.png",
  operationId: "getShareCard",
  tags: ["Sharing"],
  summary: "The share page's generated card image",
  description: "A 1200x630 PNG for media with no picture of its own (audio: the share page's og:image): a colour of the URL's own " +
    "and the waveform's peaks once `expand=waveform` made them.",
  request: { params: shareId },
  responses: {
    200: { description: "The card", headers: { "X-Request-Id": requestIdHeader }, content: { "image/png": { schema: z.string().meta({ format: "binary" }) } } },
    ...sharingErrors,
    400: badShareId,
    404: notMedia,
    405: methodNotAllowed("GET, HEAD"),
  },
});
