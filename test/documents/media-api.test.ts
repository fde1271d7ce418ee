/**
 * Office documents and other binaries (DOCX, binaries served as text, unknown binaries), the `audio` format on
 * direct media and on pages with <audio>/<video>, and the `video` format.
 * Through the real /v2/scrape API of an in-process crawlbox (document-api.ts) on the document fixture site.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Harness } from "../helpers/harness.ts";
import type { DocumentSite } from "../fixtures/documents/server.ts";
import { useDocumentApi } from "./document-api.ts";

const api = useDocumentApi();
const { scrape } = api;
let h: Harness;
let site: DocumentSite;
beforeAll(() => ({ h, site } = api));

describe("office documents and other binaries", () => {
  test("DOCX → headings, lists, table, link", async () => {
    const r = await scrape({ url: "/handbook.docx", formats: ["markdown", "links"] });
    expect(r.status).toBe(200);
    const md: string = r.body.data.markdown;
    expect(md).toContain("# Project Handbook");
    expect(md).toContain("# Getting Started");
    expect(md).toContain("## Team Contacts");
    expect(md).toContain("Read the [onboarding guide](https://example.org/onboarding) first.");
    expect(md).toContain("- Install the tools\n- Clone the repository\n  - Use the main branch");
    expect(md).toContain("1. Ask questions\n2. Share answers");
    expect(md).toContain("| Name | Role |\n| --- | --- |\n| Ada | Lead |\n| Linus | Reviewer |");
    expect(r.body.data.links).toContain("https://example.org/onboarding");
    expect(r.body.data.metadata).toMatchObject({ title: "Project Handbook", creditsUsed: 1 });
  });

  test("a binary served as text (a PNG as text/html, a video as text/plain) is an unsupported file, not junk markdown", async () => {
    for (const url of ["/png-as.html", "/mp4-as.txt"]) {
      const r = await scrape({ url, parsers: ["pdf"] });
      expect([url, r.status, r.body.code]).toEqual([url, 422, "SCRAPE_UNSUPPORTED_FILE_ERROR"]);
    }
  });

  test("a text that mentions a PDF header near its top is a page, not a corrupt PDF", async () => {
    for (const [url, words] of [["/pdf-notes.md", "Every PDF file starts with the header"], ["/pdf-fragment.html", "A PDF starts with"]] as const) {
      const r = await scrape({ url });
      expect([url, r.status]).toEqual([url, 200]);
      expect(r.body.data.markdown).toContain(words);
    }
  });

  test("bytes labelled RTF that are not RTF are not converted as RTF", async () => {
    const r = await scrape({ url: "/not-rtf.rtf" });
    expect(r.status).toBe(422);
  });

  test("an unknown binary → 422 SCRAPE_UNSUPPORTED_FILE_ERROR", async () => {
    const r = await scrape({ url: "/archive.bin" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});

describe("the audio format", () => {
  const ffmpeg = Bun.which("ffmpeg") !== null;

  async function fetchAudio(url: string): Promise<Uint8Array> {
    const path = new URL(url).pathname;
    const res = await h.request(path);
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  }

  const isMp3 = (b: Uint8Array) => (b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33) || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0);

  test("a page with an <audio> element: its source becomes data.audio", async () => {
    const r = await scrape({ url: "/podcast", formats: ["markdown", "audio"] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Episode 1");
    expect(r.body.data.audio).toMatch(/\/v2\/files\//);
    const bytes = await fetchAudio(r.body.data.audio);
    if (ffmpeg) expect(isMp3(bytes)).toBe(true);
    else expect(Buffer.from(bytes).equals(Buffer.from(site.fixtures.wav))).toBe(true);
  }, 30_000);

  test("a direct audio URL, 5 credits (upstream's +4 for audio)", async () => {
    const r = await scrape({ url: "/tone.wav", formats: ["audio"] });
    expect(r.status).toBe(200);
    expect(r.body.data.audio).toMatch(/\/v2\/files\//);
    expect(r.body.data.metadata.creditsUsed).toBe(5);
  }, 30_000);

  test("a playlist served as audio that lists files of this server is not followed (ffmpeg reads the download only)", async () => {
    if (!ffmpeg) return; // without ffmpeg the bytes are returned as they came, nothing else is read
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-secret-"));
    const secret = join(dir, "recording.mp3");
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=1234:duration=2", "-y", secret]);
    expect(made.exitCode).toBe(0);
    const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:5,\nfile://${secret}\n#EXT-X-ENDLIST\n`;
    const evil = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(playlist, { headers: { "content-type": "audio/mpeg" } }) });
    try {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${evil.port}/media.mp3`, formats: ["audio"], timeout: 30_000 } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(422);
      expect(body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
      expect(body.data?.audio).toBeUndefined();
    } finally {
      evil.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("converting a long track ends at the scrape's timeout (ffmpeg is stopped), not when ffmpeg is done", async () => {
    if (!ffmpeg) return;
    // An hour of 48 kHz stereo silence: 0.6 MB of FLAC, ~10 s of MP3 encoding on this machine.
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-long-"));
    const flac = join(dir, "long.flac");
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "3600", "-c:a", "flac", "-y", flac]);
    expect(made.exitCode).toBe(0);
    const track = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(Bun.file(flac), { headers: { "content-type": "audio/flac" } }) });
    try {
      const started = performance.now();
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${track.port}/long.flac`, formats: ["audio"], timeout: 3_000 } });
      const body = (await res.json()) as any;
      expect([res.status, body.code]).toEqual([408, "SCRAPE_TIMEOUT"]);
      expect(performance.now() - started).toBeLessThan(4_500);
    } finally {
      track.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a page with a <video> element: the audio track is extracted (needs ffmpeg)", async () => {
    const r = await scrape({ url: "/video-page", formats: ["audio"] });
    if (ffmpeg) {
      expect(r.status).toBe(200);
      expect(isMp3(await fetchAudio(r.body.data.audio))).toBe(true);
    } else {
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
    }
  }, 30_000);

  test("zero data retention gives a data: URL", async () => {
    const r = await scrape({ url: "/tone.wav", formats: ["audio"], zeroDataRetention: true });
    if (r.status === 400) return; // keys without the ZDR flag may be refused; covered elsewhere
    expect(r.body.data.audio).toMatch(/^data:audio\//);
  }, 30_000);

  test("a page without playable media → 422 SCRAPE_AUDIO_UNSUPPORTED_URL", async () => {
    const r = await scrape({ url: "/no-media", formats: ["audio"] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
  });
});

describe("the video format", () => {
  test("a page's <video>, and a direct video URL: the file as served, 5 credits; no video is a 422", async () => {
    const page = await scrape({ url: "/video-page", formats: ["markdown", "video"] });
    expect(page.status).toBe(200);
    expect(page.body.data.markdown).toContain("A short clip");
    expect(page.body.data.video).toMatch(/\/v2\/files\/[0-9a-f]{32}\.mp4$/);
    expect(page.body.data.metadata.creditsUsed).toBe(5);
    const file = await h.request(new URL(page.body.data.video).pathname);
    expect(file.headers.get("content-type")).toBe("video/mp4");
    const served = new Uint8Array(await file.arrayBuffer());
    const original = new Uint8Array(await (await fetch(`${site.url}/clip.mp4`)).arrayBuffer());
    expect(served).toEqual(original);

    const direct = await scrape({ url: "/clip.mp4", formats: ["video"] });
    expect(direct.status).toBe(200);
    expect(direct.body.data.video).toMatch(/\.mp4$/);

    for (const url of ["/no-media", "/tone.wav"]) {
      const none = await scrape({ url, formats: ["video"] });
      expect(none.status).toBe(422);
      expect(none.body.code).toBe("SCRAPE_VIDEO_UNSUPPORTED_URL");
    }
  }, 30_000);
});
