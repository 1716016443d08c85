import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../worker/encoding/sha256.ts";

describe("sha256Hex (the Worker's one SHA-256 helper)", () => {
  it("gives the FIPS 180-2 digests as lowercase hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("hashes the UTF-8 bytes of the text", async () => {
    // "é" is two UTF-8 bytes (c3 a9); Latin-1 would hash one byte. Digest from Node's crypto.createHash.
    expect(await sha256Hex("\u00e9")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });
});
