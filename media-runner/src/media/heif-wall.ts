/**
 * The pixel wall of HEIF/HEIC stills, on what the decoder will really decode (heif-items.ts): the coded size
 * of every HEVC item from its own sequence parameter set, a grid's canvas and all its tiles, never only the
 * `ispe` boxes. A primary image within the wall is decoded whole; one over it (a 48-50 MP phone photo, or a
 * file whose `ispe` lies) gives its preview from its embedded thumbnail item (`thmb`) when that is within the
 * wall, and is refused with IMAGE_TOO_LARGE before any decoder starts otherwise.
 */
import { RunnerError } from "../errors.ts";
import {
  gridSize, hevcItemSize, HeifParseError, readHeifItems, type HeifFile, type HeifItem, type PictureSize,
} from "./heif-items.ts";

/** Derived images nest (a grid of `iden` items...): deeper than this is refused, and cycles end here too. */
const maxDerivationDepth = 3;

/** What decoding `item` costs in pixels (the largest picture held, or all tiles decoded), and its picture size. */
interface ItemCost {
  pixels: number;
  size: PictureSize;
}

function area(size: PictureSize | undefined): number {
  return size ? size.width * size.height : 0;
}

function costOf(file: HeifFile, bytes: Buffer, item: HeifItem, depth: number): ItemCost {
  if (depth > maxDerivationDepth) throw new HeifParseError("derived images nest too deeply");
  if (item.type === "hvc1") {
    const coded = hevcItemSize(file, bytes, item);
    // ispe is the conformance-window crop of the coded size: within a coding block of it when honest.
    const honest = item.ispe && item.ispe.width <= coded.width && item.ispe.height <= coded.height
      && coded.width - item.ispe.width < 64 && coded.height - item.ispe.height < 64;
    return { pixels: Math.max(area(coded), area(item.ispe)), size: honest ? item.ispe! : coded };
  }
  if (item.type === "grid" || item.type === "iden" || item.type === "iovl") {
    const tiles = item.tiles.map((id) => {
      const tile = file.items.get(id);
      if (!tile) throw new HeifParseError(`item ${item.id} is derived from a missing item ${id}`);
      return costOf(file, bytes, tile, depth + 1);
    });
    if (tiles.length === 0) throw new HeifParseError(`derived item ${item.id} has no source`);
    const grid = item.type === "grid" ? gridSize(file, bytes, item) : undefined;
    const canvas = grid ? { width: grid.width, height: grid.height } : item.type === "iden" ? tiles[0]!.size : item.ispe;
    if (!canvas) throw new HeifParseError(`item ${item.id} has no size`);
    // The canvas is held whole while every tile is decoded into it.
    return { pixels: Math.max(area(canvas), area(item.ispe), tiles.reduce((sum, t) => sum + t.pixels, 0)), size: canvas };
  }
  // Other codings (AV1, JPEG, uncompressed): their declared size, bounded again by the engine's memory limit.
  if (!item.ispe) throw new HeifParseError(`item ${item.id} (${item.type}) declares no size`);
  return { pixels: area(item.ispe), size: item.ispe };
}

/** The displayed size: a quarter turn swaps the sides. */
function displayed(size: PictureSize, item: HeifItem): PictureSize {
  const turns = item.transforms.reduce((sum, t) => sum + (t.kind === "irot" ? t.quarterTurns : 0), 0);
  return turns % 2 === 1 ? { width: size.height, height: size.width } : size;
}

export type HeifDecodePlan =
  | { decode: "primary"; declared: PictureSize }
  | { decode: "thumbnail"; thumbnail: HeifItem; file: HeifFile; declared: PictureSize };

/** What to decode for a preview of `bytes` within `maxPixels`; throws the runner's error when nothing fits. */
export function planHeifDecode(bytes: Buffer, maxPixels: number): HeifDecodePlan {
  let file: HeifFile;
  let primary: HeifItem;
  let cost: ItemCost;
  try {
    file = readHeifItems(bytes);
    primary = file.items.get(file.primary)!;
    cost = costOf(file, bytes, primary, 0);
  } catch (error) {
    if (!(error instanceof HeifParseError)) throw error;
    throw new RunnerError("CORRUPT_MEDIA", "the HEIF image's structure could not be read, so its decode size cannot be checked", error.message);
  }
  const declared = displayed(cost.size, primary);
  if (cost.pixels <= maxPixels) return { decode: "primary", declared };
  const thumbnails = [...file.items.values()]
    .filter((item) => item.thumbnailOf === file.primary && item.type === "hvc1")
    .flatMap((item) => {
      try {
        const c = costOf(file, bytes, item, 1);
        return c.pixels <= maxPixels ? [{ item, pixels: c.pixels }] : [];
      } catch {
        return []; // an unreadable thumbnail is no thumbnail
      }
    })
    .sort((a, b) => b.pixels - a.pixels);
  const best = thumbnails[0];
  if (best) return { decode: "thumbnail", thumbnail: best.item, file, declared };
  const lie = primary.ispe && area(primary.ispe) < cost.pixels ? ` (its header declares ${primary.ispe.width}x${primary.ispe.height})` : "";
  throw new RunnerError("IMAGE_TOO_LARGE",
    `the image decodes to ${cost.pixels} pixels${lie}, over the limit of ${maxPixels} pixels, and has no embedded thumbnail within it`);
}
