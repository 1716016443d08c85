/** One MPEG-1/2/2.5 audio frame header (ISO 11172-3 2.4.1.3): codec, sample rate, channels. Four fixed bytes. */
const rates: Readonly<Record<number, readonly number[]>> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };
const layers: Readonly<Record<number, string>> = { 3: "mp1", 2: "mp2", 1: "mp3" };

export function mpegAudioHeader(b: Uint8Array, o: number): { codec: string; sampleRate: number; channels: number } | undefined {
  if (b[o] !== 0xff || ((b[o + 1] ?? 0) & 0xe0) !== 0xe0) return undefined;
  const version = (b[o + 1]! >> 3) & 3;
  const codec = layers[(b[o + 1]! >> 1) & 3];
  const sampleRate = rates[version]?.[(b[o + 2]! >> 2) & 3];
  if (!codec || !sampleRate) return undefined;
  return { codec, sampleRate, channels: b[o + 3]! >> 6 === 3 ? 1 : 2 };
}
