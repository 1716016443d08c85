import { ApiError, errors } from "../errors/api-error.ts";

/** Maps anything thrown during an exchange to the API's error vocabulary. */
export function toApiError(err: unknown, signal: AbortSignal, timeoutMs: number): ApiError {
  if (err instanceof ApiError) return err;
  if (signal.aborted) return errors.timeout(timeoutMs);
  const text = String(err).slice(0, 300);
  // The runtime names a failed handshake in its message; nothing else tells TLS failures apart.
  if (/tls|ssl|certificate|handshake/i.test(text)) {
    return errors.badGateway("The TLS handshake with the remote server failed (certificate or protocol).", text, { reason: "tls" });
  }
  return errors.badGateway("The remote server could not be reached or sent an invalid response.", text, { reason: "upstream-error" });
}
