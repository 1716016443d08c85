/// <reference path="./wasm-modules.d.ts" />
/**
 * The Content Authenticity Initiative's C2PA SDK (c2pa-rs compiled to WebAssembly), loaded on first use: the
 * 9 MB module is compiled only by an isolate that meets a file carrying Content Credentials. `fromBytes` uses
 * no browser-only API, so it runs in workerd and in Node alike.
 */
import type * as C2paWasm from "@contentauth/c2pa-wasm";

let loading: Promise<typeof C2paWasm> | undefined;

export function c2paSdk(): Promise<typeof C2paWasm> {
  loading ??= (async () => {
    const [sdk, wasm] = await Promise.all([import("@contentauth/c2pa-wasm"), import("@contentauth/c2pa-wasm/c2pa.wasm")]);
    sdk.initSync({ module: (wasm as { default: WebAssembly.Module }).default });
    return sdk;
  })();
  loading.catch(() => { loading = undefined; });
  return loading;
}
