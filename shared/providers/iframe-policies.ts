/**
 * Sandbox tokens shared by every provider player. `allow-scripts` + `allow-same-origin` is safe here
 * because the frame is cross-origin (the provider's origin, not ours); players need their own cookies
 * and storage. Popups escape the sandbox so "watch on <provider>" links open a normal page.
 */
export const playerSandbox = "allow-scripts allow-same-origin allow-presentation allow-popups allow-popups-to-escape-sandbox";

/**
 * Players check the embedding origin (YouTube answers error 153 without a referrer), so send the
 * origin only, never the full page URL.
 */
export const playerReferrerPolicy = "strict-origin-when-cross-origin";

export const videoSize = { width: 640, height: 360 } as const;
