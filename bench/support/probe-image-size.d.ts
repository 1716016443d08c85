// probe-image-size ships no types; the one call the bench makes.
declare module "probe-image-size" {
  export interface ProbeResult { width: number; height: number; type: string; mime: string }
  export default function probe(url: string): Promise<ProbeResult>;
}
