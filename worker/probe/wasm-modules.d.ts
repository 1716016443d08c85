// wrangler bundles `.wasm` imports as compiled WebAssembly modules.
declare module "@contentauth/c2pa-wasm/c2pa.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
