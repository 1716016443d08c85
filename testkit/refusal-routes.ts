import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * /play/...: an origin that refuses the way real ones do, with the markers the real
 * challenge pages carry, plus /play/validated/<id>: a file with ETag/Last-Modified that answers conditional
 * requests with 304 until /play/bump/<id> changes it (item 2).
 */
const versions = new Map<string, number>();

const cloudflarePage = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow"></head><body><div class="main-wrapper" role="main"><div class="main-content"><noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "example.com",cType: 'managed',cRay: '8f1a2b3c4d5e6f70',cH: 'abc',cUPMDTk: "\\/?__cf_chl_tk=xyz",cFPWv: 'b',cITimeS: '1700000000'};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8f1a2b3c4d5e6f70';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>`;
const akamaiPage = `<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \nYou don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;video&#46;mp4" on this server.<P>\nReference&#32;&#35;18&#46;6f3e1402&#46;1700000000&#46;1a2b3c4d\n<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;6f3e1402&#46;1700000000&#46;1a2b3c4d</P>\n</BODY>\n</HTML>\n`;
const datadomePage = `<html lang="en"><head><title>example.com</title><style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style></head><body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p><script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMAzkE','hsh':'2211F522B61E269B869FA6EAFFB5E1','t':'fe','s':17434,'e':'abc','host':'geo.captcha-delivery.com'}</script><script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;
const perimeterxPage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Access to this page has been denied.</title></head><body><section class="center-wrapper"><div class="page-title-wrapper"><h1 class="page-title">Before we continue...</h1></div><div id="px-captcha"></div></section><script>window._pxAppId = 'PXu6b0qd2S';window._pxJsClientSrc = '/u6b0qd2S/init.js';window._pxHostUrl = '/u6b0qd2S/xhr';</script><script src="https://captcha.px-cdn.net/PXu6b0qd2S/captcha.js?a=c&m=0"></script></body></html>`;

export function servePlay(req: IncomingMessage, res: ServerResponse, parts: string[], search: string, count: (c: Buffer | string) => void, serveFile: (extra: Record<string, string>, file: string) => void) {
  const html = (status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "text/html; charset=UTF-8", ...headers });
    count(body);
    res.end(body);
  };
  switch (parts[0]) {
    case "cloudflare":
      return html(403, cloudflarePage, { server: "cloudflare", "cf-mitigated": "challenge", "cf-ray": "8f1a2b3c4d5e6f70-FRA" });
    case "cloudflare-body":
      // The page alone (no cf-mitigated header): the body markers must be enough.
      return html(503, cloudflarePage, { server: "cloudflare" });
    case "akamai":
      return html(403, akamaiPage, { server: "AkamaiGHost", "mime-version": "1.0" });
    case "datadome":
      return html(403, datadomePage, { server: "DataDome", "x-datadome": "protected", "x-dd-b": "1" });
    case "perimeterx":
      return html(403, perimeterxPage);
    case "awswaf":
      // AWS WAF's challenge action answers 202 with its action header and a JS page.
      return html(202, `<!DOCTYPE html><html><head><script src="https://abc.token.awswaf.com/abc/challenge.js"></script></head><body><script>AwsWafIntegration.checkForceRefresh()</script></body></html>`,
        { "x-amzn-waf-action": "challenge" });
    case "forbidden":
      // A plain 403 with no challenge markers: an upstream error, not a challenge.
      return html(403, "<html><body><h1>Forbidden</h1></body></html>");
    case "login-redirect":
      res.writeHead(302, { location: `/account/login?return_to=${encodeURIComponent(`/play/login-redirect${search}`)}` });
      return res.end();
    case "consent-redirect":
      res.writeHead(303, { location: `/consent?continue=${encodeURIComponent(`/play/consent-redirect${search}`)}&gl=DE&hl=de` });
      return res.end();
    case "rate-limited":
      return html(429, "<html><body>Too Many Requests</body></html>", { "retry-after": "120" });
    case "bump": {
      versions.set(parts[1] ?? "", (versions.get(parts[1] ?? "") ?? 1) + 1);
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("{}");
    }
    case "validated": {
      // /play/validated/<id>/<file>: the file under version v of <id>; a version change is a different file
      // (the second file named after `~` is served from then on, so the bytes change with the validator).
      const id = parts[1] ?? "";
      const version = versions.get(id) ?? 1;
      const [first, second] = (parts.slice(2).join("/")).split("~");
      const etag = `"${id}-v${version}"`;
      const lastModified = new Date(Date.UTC(2026, 0, version)).toUTCString();
      if (req.headers["if-none-match"] === etag || (!req.headers["if-none-match"] && req.headers["if-modified-since"] === lastModified)) {
        res.writeHead(304, { etag, "last-modified": lastModified });
        return res.end();
      }
      return serveFile({ etag, "last-modified": lastModified }, version > 1 && second ? second : first!);
    }
    default:
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
  }
}
