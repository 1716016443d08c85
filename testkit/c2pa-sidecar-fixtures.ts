/**
 * Sidecar C2PA manifest stores, made at set-up from the C2PA SDK's own signed test image (test/fixtures/c2pa/C.jpg):
 * its manifest store is lifted out of the JPEG's APP11 segments (JPEG XT packaging: each segment carries the same
 * 8-byte box header again before its part of the store) into `C.c2pa`, and into `C-bad-signature.c2pa` from the
 * copy whose signature bytes are flipped. A plain JPEG names the sidecar in its XMP (`dcterms:provenance`, written
 * by exiftool); the Link-header case is served by the loopback origin (`?link=`). The store's bytes are not parsed
 * here: the SDK reads them in the service.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const sidecarFixtures = { store: "C.c2pa", badStore: "C-bad-signature.c2pa", xmpDeclared: "sidecar-xmp.jpg", plain: "sidecar-plain.jpg", garbage: "garbage.c2pa" } as const;

/** The manifest store a JPEG carries in its APP11 segments, joined. */
export function storeOfJpeg(jpeg: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let o = 2, first = true; o + 4 <= jpeg.length && jpeg[o] === 0xff;) {
    const marker = jpeg[o + 1]!;
    const length = jpeg.readUInt16BE(o + 2);
    if (marker === 0xda) break;
    if (marker === 0xeb && jpeg.subarray(o + 4, o + 6).toString("latin1") === "JP") {
      const payload = jpeg.subarray(o + 12, o + 2 + length); // after "JP", instance (2) and sequence (4)
      parts.push(first ? payload : payload.subarray(8));
      first = false;
    }
    o += 2 + length;
  }
  return Buffer.concat(parts);
}

export function ensureSidecarFixtures(dir: string, signedDir: string, hostileDir: string, plainJpeg: string): string {
  mkdirSync(dir, { recursive: true });
  if (Object.values(sidecarFixtures).every((f) => existsSync(join(dir, f)))) return dir;
  writeFileSync(join(dir, sidecarFixtures.store), storeOfJpeg(readFileSync(join(signedDir, "C.jpg"))));
  writeFileSync(join(dir, sidecarFixtures.badStore), storeOfJpeg(readFileSync(join(hostileDir, "c2pa-bad-signature.jpg"))));
  writeFileSync(join(dir, sidecarFixtures.garbage), Buffer.from("not a manifest store ".repeat(100)));
  copyFileSync(plainJpeg, join(dir, sidecarFixtures.plain));
  const xmp = join(dir, "provenance.xmp");
  writeFileSync(xmp, `<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`
    + `<rdf:Description rdf:about="" xmlns:dcterms="http://purl.org/dc/terms/"><dcterms:provenance>${sidecarFixtures.store}</dcterms:provenance>`
    + `</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end='w'?>`);
  const out = join(dir, sidecarFixtures.xmpDeclared);
  copyFileSync(plainJpeg, out);
  execFileSync("exiftool", ["-q", "-overwrite_original", `-xmp<=${xmp}`, out], { stdio: ["ignore", "ignore", "pipe"] });
  return dir;
}
