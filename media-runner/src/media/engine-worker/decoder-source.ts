/**
 * The frame decoder process's code: FFmpeg's libraries in-process (node-av), opened on read/seek callbacks that
 * ask the runner for bytes over IPC, so the process never opens a file or a socket of its own. One job at a
 * time; the runner kills and replaces the process on overrun, crash or memory growth (decoder-process.ts).
 *
 * What it decodes matches frame.ts's ffmpeg command: the first video stream that is not cover art, seeked the
 * same way per mode, the same scale filter (square pixels, fit in maxPx, area), as RGBA. A stream whose display
 * matrix is not the identity is answered `unsupported` (ffmpeg's CLI rotates it; the runner falls back to it).
 *
 * Plain JavaScript evaluated from a string (`node -e`), like the engine launcher's thread: the same code runs
 * from the TypeScript sources (tsx, vitest) and the compiled image without a second entry file. node-av's module
 * URL is the last argument.
 */
export const decoderSource = String.raw`
"use strict";
// node-av uses Promise.withResolvers (Node 22); the runner supports Node 20.
if (!Promise.withResolvers) {
  Promise.withResolvers = function () { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b; }); return { promise, resolve, reject }; };
}
const nodeAvUrl = process.argv[process.argv.length - 1];
const AVERROR_EIO = -5;
const AVERROR_EINVAL = -22;
const identity = [0x10000, 0, 0, 0, 0x10000, 0];
let av;
let busy = false;
let seq = 0;
const pending = new Map();

function ask(id, offset, length) {
  return new Promise((resolve, reject) => {
    const n = ++seq;
    pending.set(n, { resolve, reject });
    process.send({ type: "read", id, seq: n, offset, length });
  });
}

process.on("message", (m) => {
  if (m.type === "bytes") {
    const p = pending.get(m.seq);
    pending.delete(m.seq);
    if (!p) return;
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.data ? Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength) : Buffer.alloc(0));
    return;
  }
  if (m.type !== "job") return;
  if (busy) {
    process.send({ type: "failed", id: m.id, message: "the decoder is busy with another job" });
    return;
  }
  busy = true;
  run(m).then(
    (result) => { busy = false; process.send({ type: "done", id: m.id, ...result }); },
    (error) => { busy = false; process.send({ type: "failed", id: m.id, message: String((error && error.message) || error) }); },
  );
});
// The runner is gone: nothing is left to serve.
process.on("disconnect", () => process.exit(0));

function drain(decoder, accept, found) {
  return (async () => {
    let frame = found;
    for (;;) {
      const f = await decoder.receive();
      if (!f || typeof f !== "object" || !("width" in f)) return frame;
      if (!frame && accept(f)) frame = f;
      else f.free();
    }
  })();
}

async function run(job) {
  const { Demuxer, Decoder, FilterAPI, Packet } = av;
  const size = job.size;
  let pos = 0;
  const read = async (n) => {
    if (pos >= size) return null;
    let data;
    try {
      data = await ask(job.id, pos, Math.min(n, size - pos));
    } catch {
      return AVERROR_EIO;
    }
    if (data.length === 0) return null;
    pos += data.length;
    return data;
  };
  const seek = (offset, whence) => {
    if (whence & 0x10000) return BigInt(size); // AVSEEK_SIZE
    const o = Number(offset);
    const w = whence & 0xffff; // without AVSEEK_FORCE
    const next = w === 0 ? o : w === 1 ? pos + o : w === 2 ? size + o : -1;
    if (!(next >= 0 && next <= size)) return AVERROR_EINVAL;
    pos = next;
    return BigInt(pos);
  };
  const demuxer = await Demuxer.open({ read, seek }, { format: job.format, bufferSize: 64 * 1024, options: job.demuxerOptions });
  try {
    const stream = demuxer.streams.find((s) => s.codecpar.codecType === av.AVMEDIA_TYPE_VIDEO && !(s.disposition & av.AV_DISPOSITION_ATTACHED_PIC));
    if (!stream) return { status: "unsupported", reason: "no video stream" };
    const matrix = stream.codecpar.getCodedSideData(av.AV_PKT_DATA_DISPLAYMATRIX);
    if (matrix && matrix.length >= 24) {
      for (let i = 0; i < 6; i++) if (matrix.readInt32LE(i * 4) !== identity[i]) return { status: "unsupported", reason: "a display matrix (rotation)" };
    }
    const decoder = await Decoder.create(stream, {
      threadCount: job.threads,
      options: { max_pixels: String(job.maxPixels), ...(job.mode === "keyframe-after" ? { skip_frame: "nokey" } : {}) },
    });
    const max = job.maxPx;
    const filter = FilterAPI.create("scale=iw*sar:ih,scale=w='min(" + max + ",iw)':h='min(" + max + ",ih)':force_original_aspect_ratio=decrease:flags=area,format=rgba", { threads: 1 });
    const packet = new Packet();
    packet.alloc();
    try {
      if (job.time > 0) await demuxer.seek(job.time, -1, job.mode === "keyframe-after" ? 0 : av.AVSEEK_FLAG_BACKWARD);
      const tb = stream.timeBase;
      const accept = (f) => {
        if (job.mode !== "exact" || job.time <= 0) return true;
        const pts = f.pts;
        return pts === undefined || pts === null || Number(pts) * tb.num / tb.den >= job.time - 0.0005;
      };
      const ctx = demuxer.getFormatContext();
      let frame;
      let packets = 0;
      while (!frame) {
        const ret = await ctx.readFrame(packet);
        if (ret < 0) {
          await decoder.decode(null);
          frame = await drain(decoder, accept, frame);
          break;
        }
        if (packet.streamIndex !== stream.index) { packet.unref(); continue; }
        if (++packets > job.maxPackets) throw new Error("no frame in " + job.maxPackets + " packets");
        await decoder.decode(packet);
        packet.unref();
        frame = await drain(decoder, accept, frame);
      }
      if (!frame) return { status: "none" };
      let out = (await filter.processAll(frame))[0];
      frame.free();
      if (!out) out = (await filter.processAll(null))[0];
      if (!out) return { status: "none" };
      const data = out.toBuffer();
      const result = { status: "frame", width: out.width, height: out.height, data };
      out.free();
      return result;
    } finally {
      packet.free();
      filter.close();
      decoder.close();
    }
  } finally {
    await demuxer.close();
  }
}

import(nodeAvUrl).then(
  (module) => { av = module; process.send({ type: "ready" }); },
  (error) => { console.error(String((error && error.message) || error)); process.exit(3); },
);
`;
