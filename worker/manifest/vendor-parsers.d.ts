// Type declarations for the parts of the video.js manifest parsers we use (the packages ship no types).

declare module "m3u8-parser" {
  export interface M3u8Attributes {
    BANDWIDTH?: number;
    "AVERAGE-BANDWIDTH"?: number;
    RESOLUTION?: { width?: number; height?: number };
    "FRAME-RATE"?: number;
    CODECS?: string;
    "VIDEO-RANGE"?: string;
    AUDIO?: string;
    SUBTITLES?: string;
    [name: string]: unknown;
  }
  export interface M3u8Playlist {
    attributes?: M3u8Attributes;
    uri?: string;
  }
  export interface M3u8Rendition {
    default?: boolean;
    autoselect?: boolean;
    forced?: boolean;
    language?: string;
    uri?: string;
    characteristics?: string;
  }
  export interface M3u8Segment {
    duration?: number;
    uri?: string;
    map?: { uri?: string };
    key?: { method?: string; uri?: string };
  }
  export interface M3u8Manifest {
    playlists?: M3u8Playlist[];
    mediaGroups?: Record<string, Record<string, Record<string, M3u8Rendition>>>;
    segments: M3u8Segment[];
    endList?: boolean;
    playlistType?: string;
    targetDuration?: number;
    contentProtection?: Record<string, unknown>;
  }
  export class Parser {
    manifest: M3u8Manifest;
    push(chunk: string): void;
    end(): void;
  }
}

declare module "mpd-parser" {
  export interface MpdRepresentationInfo {
    attributes: Record<string, unknown>;
    segmentInfo: Record<string, unknown>;
  }
  export interface MpdPlaylist {
    attributes?: Record<string, unknown>;
    segments?: { resolvedUri?: string; uri?: string; duration?: number; map?: { resolvedUri?: string } }[];
  }
  /** The parts of xmldom's Node we read (an element's children include text and comment nodes). */
  export interface MpdNode {
    nodeType: number;
    nodeName: string;
    localName?: string | null;
    getAttribute?(name: string): string | null;
    childNodes?: { length: number; [i: number]: MpdNode };
  }
  /** The parts of xmldom's Element we read. */
  export interface MpdElement extends MpdNode {
    getAttribute(name: string): string | null;
    getElementsByTagName(name: string): { length: number };
  }
  export function stringToMpdXml(text: string): MpdElement;
  export function inheritAttributes(
    mpd: MpdElement,
    options?: { manifestUri?: string; NOW?: number; clientOffset?: number },
  ): { representationInfo: MpdRepresentationInfo[] };
  export function toPlaylists(representations: MpdRepresentationInfo[]): MpdPlaylist[];
}
