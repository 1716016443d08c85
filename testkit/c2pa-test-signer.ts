/**
 * A C2PA signer for test files: the CAI's SDK (@contentauth/c2pa-wasm WasmBuilder) builds and embeds the manifest;
 * its WebAssembly signer hands the claim bytes to a callback that returns the whole COSE_Sign1, so this module makes
 * that COSE_Sign1 (ES256, detached payload, the certificate chain as x5chain) and signs it with node:crypto using
 * one of the test CAs in test/fixtures/c2pa-test-ca. Only encoding lives here; every reading and check of the
 * result is the SDK's.
 */
import { createPrivateKey, sign as signBytes, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type TestCa = "trusted" | "untrusted";

/** The signature box the SDK reserves; the COSE_Sign1 is padded to exactly this size. */
const reserveSize = 8192;
const es256 = -7;
const x5chainLabel = 33;

export const testCaDir = join(import.meta.dirname, "..", "test", "fixtures", "c2pa-test-ca");

/** The SDK's signer definition for `ca`'s leaf certificate and key. */
export function testSigner(ca: TestCa): { alg: string; reserveSize: number; sign: (claim: Uint8Array) => Promise<Uint8Array<ArrayBuffer>> } {
  const key = createPrivateKey(readFileSync(join(testCaDir, `${ca}-signer.key`)));
  const chain = pemCertificates(readFileSync(join(testCaDir, `${ca}-chain.pem`), "utf8"));
  return { alg: "es256", reserveSize, sign: async (claim) => coseSign1(claim, key, chain) };
}

/** The DER of each certificate in a PEM bundle, leaf first. */
function pemCertificates(pem: string): Uint8Array[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)].map((m) => new Uint8Array(new X509Certificate(m[0]).raw));
}

/** COSE_Sign1 (RFC 9052) over `claim` as a detached payload, padded with an unprotected "pad" to `reserveSize`. */
function coseSign1(claim: Uint8Array, key: KeyObject, chain: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const protectedHeader = cbor(new Map<unknown, unknown>([[1, es256], [x5chainLabel, chain.length === 1 ? chain[0] : chain]]));
  const toBeSigned = cbor(["Signature1", protectedHeader, new Uint8Array(0), claim]);
  // COSE ECDSA signatures are r || s, not DER.
  const signature = new Uint8Array(signBytes("sha256", toBeSigned, { key, dsaEncoding: "ieee-p1363" }));
  const build = (pad: number) => cbor(new Tagged(18, [protectedHeader, new Map([["pad", new Uint8Array(pad)]]), null, signature]));
  const bare = build(0).length;
  if (bare > reserveSize) throw new Error(`COSE_Sign1 of ${bare} bytes exceeds the ${reserveSize}-byte reserve`);
  // The pad's own length header grows with it: step down until the whole is exactly the reserve.
  for (let pad = reserveSize - bare; pad >= 0; pad--) {
    const out = build(pad);
    if (out.length === reserveSize) return out as Uint8Array<ArrayBuffer>;
  }
  throw new Error("no pad length fills the signature reserve exactly");
}

class Tagged {
  constructor(readonly tag: number, readonly value: unknown) {}
}

/** Deterministic CBOR (RFC 8949) for the few types a COSE_Sign1 needs. */
function cbor(value: unknown): Uint8Array {
  const parts: Uint8Array[] = [];
  const head = (major: number, n: number) => {
    if (n < 24) parts.push(Uint8Array.of((major << 5) | n));
    else if (n < 0x100) parts.push(Uint8Array.of((major << 5) | 24, n));
    else if (n < 0x10000) parts.push(Uint8Array.of((major << 5) | 25, n >> 8, n & 0xff));
    else parts.push(Uint8Array.of((major << 5) | 26, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff));
  };
  const put = (v: unknown): void => {
    if (v === null) parts.push(Uint8Array.of(0xf6));
    else if (typeof v === "number") v >= 0 ? head(0, v) : head(1, -1 - v);
    else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v);
      head(3, bytes.length);
      parts.push(bytes);
    } else if (v instanceof Uint8Array) {
      head(2, v.length);
      parts.push(v);
    } else if (Array.isArray(v)) {
      head(4, v.length);
      v.forEach(put);
    } else if (v instanceof Map) {
      head(5, v.size);
      for (const [k, item] of v) {
        put(k);
        put(item);
      }
    } else if (v instanceof Tagged) {
      head(6, v.tag);
      put(v.value);
    } else throw new Error(`cbor: cannot encode ${typeof v}`);
  };
  put(value);
  return Buffer.concat(parts);
}
