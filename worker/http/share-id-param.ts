import { urlOfShareId } from "../../shared/format/share-id.ts";
import { InspectBody } from "../../shared/schemas/inspect.ts";
import { ApiError } from "../errors/api-error.ts";

/** The URL a /v/{id} path names, checked as the inspect body's url is; else 400 INVALID_URL. */
export function urlOfShareIdParam(id: string): string {
  const url = urlOfShareId(id);
  const checked = url === undefined ? undefined : InspectBody.shape.url.safeParse(url);
  if (!checked?.success) throw new ApiError(400, "INVALID_URL", "The share id is not an http(s) URL in base64url (identity.shareUrl names a valid one).");
  return checked.data;
}
