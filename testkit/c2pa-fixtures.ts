/**
 * Hostile Content Credentials, written at set-up: C2PA's own signed test image with its signature bytes flipped and
 * with its manifest cut short, and JPEGs whose APP11 JUMBF is a box loop (a zero-length box), a 4000-deep superbox
 * nest, or a claim whose CBOR nests 100 000 arrays. The signed originals are in test/fixtures/c2pa.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const hostileC2paFixtures = ["c2pa-bad-signature.jpg", "c2pa-truncated.jpg", "jumbf-loop.jpg", "jumbf-depth-bomb.jpg", "cbor-depth-bomb.jpg"] as const;

const storeUuid = Buffer.from("6332706100110010800000aa00389b71", "hex"); // "c2pa" store
const manifestUuid = Buffer.from("63326d6100110010800000aa00389b71", "hex"); // "c2ma" manifest
const claimUuid = Buffer.from("6332636c00110010800000aa00389b71", "hex"); // "c2cl" claim

function box(type: string, body: Buffer, size = body.length + 8): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(size, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}

function superbox(uuid: Buffer, label: string, children: Buffer[]): Buffer {
  const jumd = box("jumd", Buffer.concat([uuid, Buffer.from([0x03]), Buffer.from(`${label}\0`, "latin1")]));
  return box("jumb", Buffer.concat([jumd, ...children]));
}

/** A baseline JPEG with one APP11 segment (JPEG XT header: "JP", instance 1, sequence 1) carrying `jumbf`. */
function jpegWithJumbf(base: Buffer, jumbf: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from("JP", "latin1"), Buffer.from([0x00, 0x01]), Buffer.from([0, 0, 0, 1]), jumbf]);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xffeb, 0);
  head.writeUInt16BE(Math.min(payload.length + 2, 0xffff), 2);
  return Buffer.concat([base.subarray(0, 2), head, payload.subarray(0, 0xffff - 2), base.subarray(2)]);
}

export function ensureC2paFixtures(dir: string, signedDir: string, plainJpeg: string): string {
  mkdirSync(dir, { recursive: true });
  if (hostileC2paFixtures.every((f) => existsSync(join(dir, f)))) return dir;
  const signed = readFileSync(join(signedDir, "C.jpg"));
  // The COSE signature sits in the c2pa.signature box: flip its last 32 bytes (lengths unchanged).
  const bad = Buffer.from(signed);
  const sig = bad.indexOf("c2pa.signature");
  const cbor = bad.indexOf("cbor", sig);
  const sigEnd = cbor + 4 + (bad.readUInt32BE(cbor - 4) - 8);
  for (let i = sigEnd - 32; i < sigEnd; i++) bad[i] = bad[i]! ^ 0xff;
  writeFileSync(join(dir, "c2pa-bad-signature.jpg"), bad);
  // Cut inside the signature box, then end the image: the manifest store is truncated.
  writeFileSync(join(dir, "c2pa-truncated.jpg"), Buffer.concat([signed.subarray(0, sig + 200), Buffer.from([0xff, 0xd9])]));
  const base = readFileSync(plainJpeg);
  // A box loop: a child whose length field is 0 ("to the end") inside a superbox, followed by one claiming 8 bytes forever.
  const loop = superbox(storeUuid, "c2pa", [box("jumb", Buffer.alloc(0), 0), box("jumb", Buffer.alloc(0), 8), box("jumb", Buffer.alloc(16), 1)]);
  writeFileSync(join(dir, "jumbf-loop.jpg"), jpegWithJumbf(base, loop));
  let nest = superbox(claimUuid, "c2pa.claim", []);
  for (let i = 0; i < 4000 && nest.length < 60_000; i++) nest = box("jumb", nest);
  writeFileSync(join(dir, "jumbf-depth-bomb.jpg"), jpegWithJumbf(base, superbox(storeUuid, "c2pa", [nest])));
  // A claim whose CBOR is 50 000 nested one-element arrays (0x81 ...) ending in 0.
  const deep = Buffer.concat([Buffer.alloc(50_000, 0x81), Buffer.from([0x00])]);
  const claim = superbox(claimUuid, "c2pa.claim.v2", [box("cbor", deep)]);
  const manifest = superbox(manifestUuid, "urn:c2pa:00000000-0000-0000-0000-000000000000", [claim]);
  writeFileSync(join(dir, "cbor-depth-bomb.jpg"), jpegWithJumbf(base, superbox(storeUuid, "c2pa", [manifest])));
  return dir;
}
