import { describe, expect, it } from "vitest";
import {
  ProviderMatch,
  buildIframeAttributes,
  buildIframeHtml,
  detectProvider,
  escapeHtmlAttribute,
  parseTimestamp,
  providerNames,
} from "../../shared/providers/index.ts";

const yt = "dQw4w9WgXcQ";
const ytEmbed = `https://www.youtube-nocookie.com/embed/${yt}`;
const ytWatch = `https://www.youtube.com/watch?v=${yt}`;
const list = "PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI";
const track = "4uLU6hMCjMI75M1A2tKUQC";
const loomId = "0281766fa2d04bb788eaf19e65135184";
const tiktokId = "7106594312292453675";

/** [input, provider or null, canonicalUrl, embedUrl] */
type Row = [string, string | null, string?, string?];

const table: Row[] = [
  // YouTube
  [`https://www.youtube.com/watch?v=${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://youtube.com/watch?v=${yt}`, "youtube", ytWatch, ytEmbed],
  [`http://m.youtube.com/watch?v=${yt}&feature=share`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/watch?feature=youtu.be&v=${yt}&si=AbCdEf123&pp=ygU`, "youtube", ytWatch, ytEmbed],
  [`https://youtu.be/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://youtu.be/${yt}?si=xyz123&t=42`, "youtube", ytWatch, `${ytEmbed}?start=42`],
  [`https://www.youtube.com/shorts/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://youtube.com/shorts/${yt}?feature=share`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/embed/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/embed/${yt}?start=90&rel=0`, "youtube", ytWatch, `${ytEmbed}?start=90`],
  [`https://www.youtube-nocookie.com/embed/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://youtube-nocookie.com/embed/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/live/${yt}?si=abc`, "youtube", ytWatch, ytEmbed],
  [`https://music.youtube.com/watch?v=${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/v/${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/watch?v=${yt}&t=1m30s`, "youtube", ytWatch, `${ytEmbed}?start=90`],
  [`https://www.youtube.com/watch?v=${yt}&t=90s`, "youtube", ytWatch, `${ytEmbed}?start=90`],
  [`https://www.youtube.com/watch?v=${yt}#t=1h2m3s`, "youtube", ytWatch, `${ytEmbed}?start=3723`],
  [`https://www.youtube.com/watch?v=${yt}&list=${list}&index=3`, "youtube", `${ytWatch}&list=${list}`, `${ytEmbed}?list=${list}`],
  [`https://www.youtube.com/watch?v=${yt}&list=${list}&t=10`, "youtube", `${ytWatch}&list=${list}`, `${ytEmbed}?start=10&list=${list}`],
  [`https://www.youtube.com/playlist?list=${list}`, "youtube", `https://www.youtube.com/playlist?list=${list}`,
    `https://www.youtube-nocookie.com/embed/videoseries?list=${list}`],
  [`https://www.youtube.com/embed/videoseries?list=${list}`, "youtube", `https://www.youtube.com/playlist?list=${list}`,
    `https://www.youtube-nocookie.com/embed/videoseries?list=${list}`],
  [`HTTPS://WWW.YOUTUBE.COM/watch?v=${yt}`, "youtube", ytWatch, ytEmbed],
  [`https://www.youtube.com/watch?v=dQw4w9WgXc`, null], // 10 characters
  [`https://www.youtube.com/watch?v=dQw4w9WgXcQ1`, null], // 12 characters
  [`https://www.youtube.com/watch?v=dQw4w9<gXcQ`, null],
  [`https://www.youtube.com/watch?v=dQw4w9%22XcQ`, null],
  [`https://www.youtube.com/@rickastley`, null],
  [`https://www.youtube.com/`, null],
  [`https://youtu.be/${yt}/extra`, null],
  [`https://www.youtube.com/shorts/${yt}/extra`, null],
  [`https://www.youtube.com/channel/${yt}`, null],
  [`https://www.youtube.com/playlist?list=bad!list`, null],
  [`https://youtube.com.evil.example/watch?v=${yt}`, null],
  [`https://evil-youtube.com/watch?v=${yt}`, null],
  [`https://notyoutube.com/watch?v=${yt}`, null],
  [`https://youtube.com@evil.example/watch?v=${yt}`, null],
  [`https://user:pass@www.youtube.com/watch?v=${yt}`, null],
  [`https://www.youtube.com:8443/watch?v=${yt}`, null],
  [`ftp://www.youtube.com/watch?v=${yt}`, null],
  [`javascript:alert(1)//www.youtube.com/watch?v=${yt}`, null],
  [`data:text/html,https://www.youtube.com/watch?v=${yt}`, null],
  [`//www.youtube.com/watch?v=${yt}`, null],
  [`www.youtube.com/watch?v=${yt}`, null],
  [`https://www.youtube.com./watch?v=${yt}`, null],
  [`https://xn--yutube-wqf.com/watch?v=${yt}`, null], // IDN homograph
  [`https://www.youtube.com.\u0435vil.example/watch?v=${yt}`, null],
  // Vimeo
  ["https://vimeo.com/76979871", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://www.vimeo.com/76979871?share=copy", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://vimeo.com/channels/staffpicks/76979871", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://vimeo.com/groups/motion/videos/76979871", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://vimeo.com/showcase/1234/video/76979871", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://vimeo.com/76979871/8272103f6e", "vimeo", "https://vimeo.com/76979871/8272103f6e",
    "https://player.vimeo.com/video/76979871?h=8272103f6e"],
  ["https://player.vimeo.com/video/76979871", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"],
  ["https://player.vimeo.com/video/76979871?h=8272103f6e&badge=0", "vimeo", "https://vimeo.com/76979871/8272103f6e",
    "https://player.vimeo.com/video/76979871?h=8272103f6e"],
  ["https://vimeo.com/76979871#t=90s", "vimeo", "https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871#t=1m30s"],
  ["https://vimeo.com/channels/staffpicks", null],
  ["https://vimeo.com/about", null],
  ["https://vimeo.com/76979871/NOT-A-HASH", null],
  ["https://vimeo.com.evil.example/76979871", null],
  // Spotify
  [`https://open.spotify.com/track/${track}`, "spotify", `https://open.spotify.com/track/${track}`,
    `https://open.spotify.com/embed/track/${track}`],
  [`https://open.spotify.com/track/${track}?si=a1b2c3d4e5f6`, "spotify", `https://open.spotify.com/track/${track}`,
    `https://open.spotify.com/embed/track/${track}`],
  [`https://open.spotify.com/intl-de/track/${track}`, "spotify", `https://open.spotify.com/track/${track}`,
    `https://open.spotify.com/embed/track/${track}`],
  [`https://open.spotify.com/intl-pt-BR/album/1DFixLWuPkv3KT3TnV35m3`, "spotify", "https://open.spotify.com/album/1DFixLWuPkv3KT3TnV35m3",
    "https://open.spotify.com/embed/album/1DFixLWuPkv3KT3TnV35m3"],
  ["https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M", "spotify", "https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M",
    "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M"],
  ["https://open.spotify.com/episode/512ojhOuo1ktJprKbVcKyQ", "spotify", "https://open.spotify.com/episode/512ojhOuo1ktJprKbVcKyQ",
    "https://open.spotify.com/embed/episode/512ojhOuo1ktJprKbVcKyQ"],
  ["https://open.spotify.com/show/5CfCWKI5pZ28U0uOzXkDHe", "spotify", "https://open.spotify.com/show/5CfCWKI5pZ28U0uOzXkDHe",
    "https://open.spotify.com/embed/show/5CfCWKI5pZ28U0uOzXkDHe"],
  ["https://open.spotify.com/artist/0TnOYISbd1XYRBk9myaseg", "spotify", "https://open.spotify.com/artist/0TnOYISbd1XYRBk9myaseg",
    "https://open.spotify.com/embed/artist/0TnOYISbd1XYRBk9myaseg"],
  [`https://open.spotify.com/embed/track/${track}?utm_source=generator`, "spotify", `https://open.spotify.com/track/${track}`,
    `https://open.spotify.com/embed/track/${track}`],
  ["https://open.spotify.com/user/spotify/playlist/37i9dQZF1DXcBWIGoYBM5M", "spotify",
    "https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M", "https://open.spotify.com/embed/playlist/37i9dQZF1DXcBWIGoYBM5M"],
  [`spotify:track:${track}`, "spotify", `https://open.spotify.com/track/${track}`, `https://open.spotify.com/embed/track/${track}`],
  [`https://open.spotify.com/audiobook/${track}`, null],
  [`https://open.spotify.com/track/${track.slice(1)}`, null],
  [`https://open.spotify.com/track/${track.slice(1)}_`, null],
  [`https://spotify.com/track/${track}`, null],
  [`spotify:user:${track}`, null],
  // SoundCloud
  ["https://soundcloud.com/forss/flickermood", "soundcloud", "https://soundcloud.com/forss/flickermood",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood"],
  ["https://m.soundcloud.com/forss/flickermood?utm_source=clipboard&in=x", "soundcloud", "https://soundcloud.com/forss/flickermood",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood"],
  ["https://soundcloud.com/forss/sets/soulhack", "soundcloud", "https://soundcloud.com/forss/sets/soulhack",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fsets%2Fsoulhack"],
  ["https://soundcloud.com/forss/flickermood/s-AbCd1234", "soundcloud", "https://soundcloud.com/forss/flickermood/s-AbCd1234",
    "https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com%2Fforss%2Fflickermood%2Fs-AbCd1234"],
  ["https://soundcloud.com/forss", null],
  ["https://soundcloud.com/forss/likes", null],
  ["https://soundcloud.com/discover/sets", null],
  ["https://soundcloud.com/forss/flick%20ermood", null],
  // Dailymotion
  ["https://www.dailymotion.com/video/x8abc12", "dailymotion", "https://www.dailymotion.com/video/x8abc12",
    "https://www.dailymotion.com/embed/video/x8abc12"],
  ["https://www.dailymotion.com/video/x2bqs3_some-title_news", "dailymotion", "https://www.dailymotion.com/video/x2bqs3",
    "https://www.dailymotion.com/embed/video/x2bqs3"],
  ["https://dai.ly/x8abc12", "dailymotion", "https://www.dailymotion.com/video/x8abc12", "https://www.dailymotion.com/embed/video/x8abc12"],
  ["https://www.dailymotion.com/embed/video/x8abc12?start=30", "dailymotion", "https://www.dailymotion.com/video/x8abc12",
    "https://www.dailymotion.com/embed/video/x8abc12?start=30"],
  ["https://geo.dailymotion.com/player.html?video=x8abc12", "dailymotion", "https://www.dailymotion.com/video/x8abc12",
    "https://www.dailymotion.com/embed/video/x8abc12"],
  ["https://www.dailymotion.com/user/somebody", null],
  // Twitch
  ["https://www.twitch.tv/videos/1234567890", "twitch", "https://www.twitch.tv/videos/1234567890",
    "https://player.twitch.tv/?video=1234567890"],
  ["https://www.twitch.tv/videos/1234567890?t=1h2m3s", "twitch", "https://www.twitch.tv/videos/1234567890",
    "https://player.twitch.tv/?video=1234567890&time=1h2m3s"],
  ["https://clips.twitch.tv/AwkwardHelplessSalamanderSwiftRage", "twitch", "https://clips.twitch.tv/AwkwardHelplessSalamanderSwiftRage",
    "https://clips.twitch.tv/embed?clip=AwkwardHelplessSalamanderSwiftRage"],
  ["https://www.twitch.tv/shroud/clip/AwkwardHelplessSalamanderSwiftRage-AbC_123", "twitch",
    "https://clips.twitch.tv/AwkwardHelplessSalamanderSwiftRage-AbC_123",
    "https://clips.twitch.tv/embed?clip=AwkwardHelplessSalamanderSwiftRage-AbC_123"],
  ["https://m.twitch.tv/Shroud", "twitch", "https://www.twitch.tv/shroud", "https://player.twitch.tv/?channel=shroud"],
  ["https://player.twitch.tv/?video=v1234567890&parent=example.com", "twitch", "https://www.twitch.tv/videos/1234567890",
    "https://player.twitch.tv/?video=1234567890"],
  ["https://www.twitch.tv/directory", null],
  ["https://www.twitch.tv/videos/abc", null],
  ["https://www.twitch.tv/shroud/clip/bad slug", null],
  // TikTok
  [`https://www.tiktok.com/@scout2015/video/${tiktokId}`, "tiktok", `https://www.tiktok.com/@scout2015/video/${tiktokId}`,
    `https://www.tiktok.com/player/v1/${tiktokId}`],
  [`https://m.tiktok.com/@scout.2015/video/${tiktokId}?is_from_webapp=1&sender_device=pc`, "tiktok",
    `https://www.tiktok.com/@scout.2015/video/${tiktokId}`, `https://www.tiktok.com/player/v1/${tiktokId}`],
  [`https://www.tiktok.com/embed/v2/${tiktokId}`, "tiktok", `https://www.tiktok.com/player/v1/${tiktokId}`,
    `https://www.tiktok.com/player/v1/${tiktokId}`],
  [`https://www.tiktok.com/@scout2015`, null],
  [`https://www.tiktok.com/@scout2015/video/12345`, null],
  [`https://vm.tiktok.com/ZMabcdef/`, null], // opaque short link: needs a redirect, not a pattern
  // Wistia
  ["https://support.wistia.com/medias/26sk4lmiix", "wistia", "https://fast.wistia.net/embed/iframe/26sk4lmiix",
    "https://fast.wistia.net/embed/iframe/26sk4lmiix"],
  ["https://home.wistia.com/medias/26sk4lmiix?wtime=1m5s", "wistia", "https://fast.wistia.net/embed/iframe/26sk4lmiix",
    "https://fast.wistia.net/embed/iframe/26sk4lmiix?time=65"],
  ["https://fast.wistia.net/embed/iframe/26sk4lmiix?videoFoam=true", "wistia", "https://fast.wistia.net/embed/iframe/26sk4lmiix",
    "https://fast.wistia.net/embed/iframe/26sk4lmiix"],
  ["https://a.b.wistia.com/medias/26sk4lmiix", null],
  ["https://wistia.com.evil.example/medias/26sk4lmiix", null],
  ["https://evilwistia.com/medias/26sk4lmiix", null],
  ["https://support.wistia.com/medias/26SK4LMIIX", null],
  // Loom
  [`https://www.loom.com/share/${loomId}`, "loom", `https://www.loom.com/share/${loomId}`, `https://www.loom.com/embed/${loomId}`],
  [`https://www.loom.com/share/Quarterly-demo-${loomId}?sid=abc`, "loom", `https://www.loom.com/share/${loomId}`,
    `https://www.loom.com/embed/${loomId}`],
  [`https://loom.com/embed/${loomId}?t=75`, "loom", `https://www.loom.com/share/${loomId}`, `https://www.loom.com/embed/${loomId}?t=75`],
  [`https://www.loom.com/share/${loomId.slice(2)}`, null],
  // Streamable
  ["https://streamable.com/moo", null], // too short for a shortcode
  ["https://streamable.com/2ab8cd", "streamable", "https://streamable.com/2ab8cd", "https://streamable.com/e/2ab8cd"],
  ["https://streamable.com/e/2ab8cd", "streamable", "https://streamable.com/2ab8cd", "https://streamable.com/e/2ab8cd"],
  ["https://streamable.com/login", null],
  // Not provider URLs at all
  ["https://example.com/video.mp4", null],
  ["not a url", null],
  ["", null],
];

describe("detectProvider URL table", () => {
  it("has at least 70 rows covering every provider", () => {
    expect(table.length).toBeGreaterThanOrEqual(70);
    const covered = new Set(table.map(([, name]) => name));
    for (const name of providerNames) expect(covered).toContain(name);
  });

  it.each(table)("%s -> %s", (input, name, canonicalUrl, embedUrl) => {
    const match = detectProvider(input);
    if (name === null) {
      expect(match).toBeNull();
      return;
    }
    expect(match).not.toBeNull();
    expect(ProviderMatch.parse(match)).toEqual(match);
    expect(match!.name).toBe(name);
    expect(match!.detectionMethod).toBe("url-parser");
    expect(match!.canonicalUrl).toBe(canonicalUrl);
    expect(match!.embedUrl).toBe(embedUrl);
  });
});

describe("provider fields", () => {
  it("gives YouTube its native thumbnail, oEmbed endpoint and the requested allow list", () => {
    const match = detectProvider(`https://youtu.be/${yt}?t=90`)!;
    expect(match.thumbnailUrl).toBe(`https://i.ytimg.com/vi/${yt}/hqdefault.jpg`);
    expect(match.oembed).toEqual({ endpoint: "https://www.youtube.com/oembed", url: ytWatch });
    expect(match.iframe.allow).toBe(
      "accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share",
    );
    expect(match.semanticType).toBe("embedded-video");
    expect(match.id).toBe(yt);
    expect(match.startSeconds).toBe(90);
    expect(match.confidence).toBe(1);
  });

  it("passes the unlisted Vimeo URL (with hash) to oEmbed", () => {
    const match = detectProvider("https://player.vimeo.com/video/76979871?h=8272103f6e")!;
    expect(match.oembed).toEqual({
      endpoint: "https://vimeo.com/api/oembed.json",
      url: "https://vimeo.com/76979871/8272103f6e",
    });
    expect(match.thumbnailUrl).toBeUndefined();
  });

  it("marks Spotify as audio with the encrypted-media / clipboard-write policy and a compact track player", () => {
    const trackMatch = detectProvider(`https://open.spotify.com/intl-fr/track/${track}`)!;
    expect(trackMatch.semanticType).toBe("embedded-audio");
    expect(trackMatch.iframe.allow).toContain("encrypted-media");
    expect(trackMatch.iframe.allow).toContain("clipboard-write");
    expect(trackMatch.iframe.height).toBe(152);
    expect(trackMatch.oembed?.url).toBe(`https://open.spotify.com/track/${track}`);
    expect(detectProvider("https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M")!.iframe.height).toBe(352);
  });

  it("marks SoundCloud as audio with a taller player for sets", () => {
    expect(detectProvider("https://soundcloud.com/forss/flickermood")!.semanticType).toBe("embedded-audio");
    expect(detectProvider("https://soundcloud.com/forss/sets/soulhack")!.iframe.height).toBe(450);
  });

  it("lowers confidence for one-segment Twitch channel paths", () => {
    expect(detectProvider("https://www.twitch.tv/shroud")!.confidence).toBeLessThan(1);
    expect(detectProvider("https://www.twitch.tv/videos/1234567890")!.confidence).toBe(1);
  });

  it("has no Twitch oEmbed endpoint and says the embed needs a parent host", () => {
    const match = detectProvider("https://www.twitch.tv/videos/1234567890")!;
    expect(match.oembed).toBeUndefined();
    expect(match.capabilities.requiresParentHost).toBe(true);
    expect(detectProvider(`https://youtu.be/${yt}`)!.capabilities.requiresParentHost).toBe(false);
  });

  it("accepts a URL object as input", () => {
    expect(detectProvider(new URL(`https://youtu.be/${yt}`))?.name).toBe("youtube");
  });

  it("lists every provider name once, lower-case", () => {
    expect(providerNames).toEqual([
      "youtube", "vimeo", "spotify", "soundcloud", "dailymotion", "twitch", "tiktok", "wistia", "loom", "streamable",
    ]);
  });
});

describe("timestamps and playlists carry over", () => {
  it.each([
    ["90", 90], ["90s", 90], ["1m30s", 90], ["1h2m3s", 3723], ["1:30", 90], ["1:02:03", 3723], ["2m", 120],
  ])("parses %s as %i seconds", (raw, seconds) => {
    expect(parseTimestamp(raw)).toBe(seconds);
  });

  it.each(["", "0", "s", "abc", "1m30x", "-5", "99999999", "1.5"])("rejects timestamp %j", (raw) => {
    expect(parseTimestamp(raw)).toBeUndefined();
  });

  it("puts YouTube start and list into the embed, and drops a garbage t", () => {
    const match = detectProvider(`https://www.youtube.com/watch?v=${yt}&list=${list}&t=2m5s`)!;
    expect(match.embedUrl).toBe(`${ytEmbed}?start=125&list=${list}`);
    expect(match.playlistId).toBe(list);
    expect(detectProvider(`https://www.youtube.com/watch?v=${yt}&t=evil`)!.embedUrl).toBe(ytEmbed);
  });

  it("uses start= when t= is absent", () => {
    expect(detectProvider(`https://www.youtube.com/watch?v=${yt}&start=45`)!.startSeconds).toBe(45);
  });

  it("carries Vimeo #t= into the player fragment, after the unlisted hash", () => {
    expect(detectProvider("https://vimeo.com/76979871/8272103f6e#t=1h1s")!.embedUrl).toBe(
      "https://player.vimeo.com/video/76979871?h=8272103f6e#t=1h0m1s",
    );
  });

  it("carries Dailymotion and Loom starts", () => {
    expect(detectProvider("https://www.dailymotion.com/video/x8abc12?start=1m")!.embedUrl).toBe(
      "https://www.dailymotion.com/embed/video/x8abc12?start=60",
    );
    expect(detectProvider(`https://www.loom.com/share/${loomId}?t=1m`)!.embedUrl).toBe(`https://www.loom.com/embed/${loomId}?t=60`);
  });

  it("keeps timestamps out of the canonical and oEmbed URLs so one media has one identity", () => {
    const a = detectProvider(`https://youtu.be/${yt}?t=10`)!;
    const b = detectProvider(`https://www.youtube.com/watch?v=${yt}&t=20`)!;
    expect(a.canonicalUrl).toBe(b.canonicalUrl);
    expect(a.oembed).toEqual(b.oembed);
    expect(a.embedUrl).not.toBe(b.embedUrl);
  });
});

describe("Twitch parent host", () => {
  it("adds one parent= per valid host, skipping invalid ones", () => {
    const match = detectProvider("https://clips.twitch.tv/AwkwardHelplessSalamander", {
      parentHosts: ["Example.com", "embed.example.org", "bad host/x", "a&b=c"],
    })!;
    expect(match.embedUrl).toBe(
      "https://clips.twitch.tv/embed?clip=AwkwardHelplessSalamander&parent=example.com&parent=embed.example.org",
    );
  });

  it("ignores parentHosts for other providers", () => {
    expect(detectProvider(`https://youtu.be/${yt}`, { parentHosts: ["example.com"] })!.embedUrl).toBe(ytEmbed);
  });
});

describe("buildIframeHtml", () => {
  const match = detectProvider(`https://www.youtube.com/watch?v=${yt}&t=90&list=${list}`)!;

  it("escapes quotes, angle brackets and ampersands in every attribute", () => {
    const html = buildIframeHtml(match, { title: `Tom & "Jerry" <script>alert('x')</script>` });
    expect(html).toContain(`title="Tom &amp; &quot;Jerry&quot; &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"`);
    expect(html).toContain(`src="${ytEmbed}?start=90&amp;list=${list}"`);
    expect(html).not.toContain("<script>");
    expect(html.startsWith("<iframe ")).toBe(true);
    expect(html.endsWith("></iframe>")).toBe(true);
  });

  it("carries the provider policy, lazy loading and allowfullscreen", () => {
    const html = buildIframeHtml(match);
    expect(html).toContain(`allow="${match.iframe.allow}"`);
    expect(html).toContain(`sandbox="${match.iframe.sandbox}"`);
    expect(html).toContain(`referrerpolicy="strict-origin-when-cross-origin"`);
    expect(html).toContain(`width="640" height="360"`);
    expect(html).toContain(`loading="lazy"`);
    expect(html).toMatch(/ allowfullscreen><\/iframe>$/);
    expect(html).toContain(`title="youtube video player"`);
  });

  it("exposes the attributes as data for render.attributes", () => {
    const attributes = buildIframeAttributes(match);
    expect(attributes.src).toBe(match.embedUrl);
    expect(attributes.allowfullscreen).toBe(true);
  });

  it("escapeHtmlAttribute leaves safe text alone and escapes the five specials", () => {
    expect(escapeHtmlAttribute("plain text 123")).toBe("plain text 123");
    expect(escapeHtmlAttribute(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
    expect(escapeHtmlAttribute("&amp;")).toBe("&amp;amp;");
  });
});
