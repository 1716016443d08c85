/**
 * A 12-bit LZW TIFF whose every strip points at the same run of LZW clear codes: each clear code decodes to
 * nothing, so every strip the preview samples is read to its end without filling a row. The work is the sampled
 * strips times the run's length (about 1,300 x 1.9 million codes here), from a file of a few megabytes: the
 * decoder's time wall, not its pixel wall, has to stop it.
 */
export function clearCodeTiff(width = 1000, height = 50_000, runBytes = 2 * 1024 * 1024): Buffer {
  // 9-bit code 256 (100000000) repeated: the bit pattern repeats every 9 bytes.
  const pattern = Buffer.alloc(9);
  for (let bit = 0; bit < 72; bit++) if (bit % 9 === 0) pattern[bit >> 3]! |= 0x80 >> (bit & 7);
  const run = Buffer.alloc(runBytes);
  for (let o = 0; o < runBytes; o += 9) pattern.copy(run, o, 0, Math.min(9, runBytes - o));
  const entries: [number, number, number, number | number[]][] = [
    [256, 4, 1, width], [257, 4, 1, height], [258, 3, 1, 12], [259, 3, 1, 5], [262, 3, 1, 1],
    [273, 4, height, new Array<number>(height).fill(0)], [277, 3, 1, 1], [278, 4, 1, 1],
    [279, 4, height, new Array<number>(height).fill(runBytes)], [284, 3, 1, 1],
  ];
  const ifdAt = 8;
  const ifdBytes = 2 + entries.length * 12 + 4;
  const arraysAt = ifdAt + ifdBytes;
  const runAt = arraysAt + height * 4 * 2;
  const head = Buffer.alloc(runAt);
  head.write("II", 0, "latin1");
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(ifdAt, 4);
  head.writeUInt16LE(entries.length, ifdAt);
  let arrays = arraysAt;
  entries.forEach(([tag, type, count, value], i) => {
    const at = ifdAt + 2 + i * 12;
    head.writeUInt16LE(tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(count, at + 4);
    if (Array.isArray(value)) {
      head.writeUInt32LE(arrays, at + 8);
      // Every strip offset is the run's; every byte count its length.
      for (let k = 0; k < count; k++) head.writeUInt32LE(tag === 273 ? runAt : value[k]!, arrays + k * 4);
      arrays += count * 4;
    } else if (type === 3) head.writeUInt16LE(value, at + 8);
    else head.writeUInt32LE(value, at + 8);
  });
  return Buffer.concat([head, run]);
}
