import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PhotonImage } from "@cf-wasm/photon/node";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { quantizePalette } from "../../shared/media/palette.ts";

type Rgb = [number, number, number];

/** An RGBA raster filled by `paint(x, y)`; undefined paints a transparent pixel. */
function raster(width: number, height: number, paint: (x: number, y: number) => Rgb | undefined): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = paint(x, y);
      out.set(c ? [...c, 255] : [0, 0, 0, 0], (y * width + x) * 4);
    }
  }
  return out;
}

const hexOf = ([r, g, b]: Rgb) => "#" + [r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("");
const rgbOf = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Deterministic noise (LCG), so the tests never flake. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe("quantizePalette", () => {
  it("a flat image is one colour covering everything", () => {
    const p = quantizePalette(raster(16, 16, () => [30, 120, 200]), 16, 16);
    expect(p).toEqual({ dominant: "#1e78c8", colors: [{ hex: "#1e78c8", share: 1 }] });
  });

  it("gives exact shares, largest first, and dominant = colors[0] (a logo on white gives white)", () => {
    const red: Rgb = [220, 20, 60];
    const white: Rgb = [255, 255, 255];
    const p = quantizePalette(raster(10, 10, (x) => (x < 7 ? white : red)), 10, 10);
    expect(p.colors).toEqual([{ hex: hexOf(white), share: 0.7 }, { hex: hexOf(red), share: 0.3 }]);
    expect(p.dominant).toBe(p.colors[0]!.hex);
  });

  it("finds the centres of noisy, well-separated colour clusters", () => {
    const centres: Rgb[] = [[200, 40, 40], [40, 160, 60], [30, 60, 200], [240, 220, 90]];
    const weights = [0.4, 0.3, 0.2, 0.1];
    const rand = lcg(7);
    const w = 64, h = 64;
    const p = quantizePalette(raster(w, h, (x, y) => {
      const i = y * w + x;
      const k = i < 0.4 * w * h ? 0 : i < 0.7 * w * h ? 1 : i < 0.9 * w * h ? 2 : 3;
      return centres[k]!.map((v) => Math.max(0, Math.min(255, Math.round(v + (rand() - 0.5) * 30)))) as Rgb;
    }), w, h);
    expect(p.colors).toHaveLength(4);
    p.colors.forEach((c, k) => {
      expect(distance(rgbOf(c.hex), centres[k]!)).toBeLessThan(4);
      expect(c.share).toBeCloseTo(weights[k]!, 2);
    });
  });

  it("keeps at most 6 colours, ordered by share, shares within 0-1", () => {
    const colours: Rgb[] = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255], [255, 255, 255]];
    // Stripes of widths 8, 7, ... 1: eight distinct colours with distinct shares.
    const bounds = [8, 15, 21, 26, 30, 33, 35, 36];
    const p = quantizePalette(raster(36, 4, (x) => colours[bounds.findIndex((b) => x < b)]!), 36, 4);
    expect(p.colors.map((c) => c.hex)).toEqual(colours.slice(0, 6).map(hexOf));
    expect(p.colors.map((c) => c.share)).toEqual([8, 7, 6, 5, 4, 3].map((n) => Math.round((n / 36) * 10_000) / 10_000));
    expect(quantizePalette(raster(36, 4, (x) => colours[bounds.findIndex((b) => x < b)]!), 36, 4, 3).colors).toHaveLength(3);
  });

  it("merges near-equal shades and drops specks under 1 %", () => {
    const p = quantizePalette(raster(100, 10, (x, y) => (x === 0 && y === 0 ? [0, 255, 0] : x < 50 ? [100, 100, 100] : [104, 102, 100])), 100, 10);
    expect(p.colors).toHaveLength(1);
    expect(distance(rgbOf(p.colors[0]!.hex), [102, 101, 100])).toBeLessThan(2);
    expect(p.colors[0]!.share).toBeCloseTo(0.999, 3);
  });

  it("skips transparent pixels; an all-transparent raster has no colours", () => {
    const p = quantizePalette(raster(10, 10, (x) => (x < 8 ? undefined : [10, 20, 30])), 10, 10);
    expect(p.colors).toEqual([{ hex: "#0a141e", share: 1 }]);
    expect(quantizePalette(raster(4, 4, () => undefined), 4, 4)).toEqual({ dominant: "#000000", colors: [] });
  });

  it("is deterministic for the same pixels", () => {
    const rand = lcg(42);
    const pixels = raster(48, 48, () => [rand() * 255, rand() * 255, rand() * 255].map(Math.floor) as Rgb);
    const a = quantizePalette(pixels, 48, 48);
    expect(quantizePalette(pixels.slice(), 48, 48)).toEqual(a);
    expect(a.colors.length).toBeGreaterThan(1);
    expect(a.colors.length).toBeLessThanOrEqual(6);
    const shares = a.colors.map((c) => c.share);
    expect([...shares].sort((x, y) => y - x)).toEqual(shares);
    expect(shares.reduce((s, v) => s + v, 0)).toBeLessThanOrEqual(1.0001);
  });

  it("edge (photon) and runner (sharp) pixels of the same PNG give the same palette", async () => {
    const bytes = readFileSync(join(import.meta.dirname, "..", "fixtures", "images", "png-opaque.png"));
    const photon = PhotonImage.new_from_byteslice(bytes);
    const edge = { pixels: photon.get_raw_pixels(), width: photon.get_width(), height: photon.get_height() };
    photon.free();
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(Buffer.from(edge.pixels).equals(data)).toBe(true);
    const fromEdge = quantizePalette(edge.pixels, edge.width, edge.height);
    expect(quantizePalette(data, info.width, info.height)).toEqual(fromEdge);
    expect(fromEdge.colors.length).toBeGreaterThanOrEqual(2);
  });
});
