import { describe, expect, test } from "bun:test";
import { charsetFromContentType, decodeText, isTextMimeType, prescanMetaCharset, sniffCharset } from "../../src/engines/charset.ts";
import { CHARSET_SAMPLES } from "../fixtures/servers.ts";

const bytes = (...parts: Array<string | Uint8Array>) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

describe("sniffCharset order: BOM, header, meta, default", () => {
  test("BOM wins over the header", () => {
    const body = bytes(new Uint8Array([0xef, 0xbb, 0xbf]), "<p>x</p>");
    expect(sniffCharset(body, "text/html", "text/html; charset=shift_jis")).toEqual({ charset: "utf-8", source: "bom", bomBytes: 3 });
    expect(decodeText(body, "text/html", "text/html; charset=shift_jis").text).toBe("<p>x</p>");
    expect(sniffCharset(bytes(new Uint8Array([0xff, 0xfe])), "text/html").charset).toBe("utf-16le");
  });

  test("header wins over meta; labels are normalised", () => {
    const body = bytes('<meta charset="gbk">');
    expect(sniffCharset(body, "text/html", 'text/html; charset="Shift_JIS"')).toMatchObject({ charset: "shift_jis", source: "header" });
    expect(sniffCharset(body, "text/html", "text/html; charset=cp1251")).toMatchObject({ charset: "windows-1251" });
  });

  test("an unknown header label is ignored", () => {
    expect(sniffCharset(bytes('<meta charset="gbk">'), "text/html", "text/html; charset=bogus")).toMatchObject({ source: "meta", charset: "gbk" });
  });

  test("meta prescan: charset attribute, http-equiv, comments, 1024-byte window", () => {
    expect(prescanMetaCharset(bytes("<html><head><META CHARSET=windows-1251>"))).toBe("windows-1251");
    expect(prescanMetaCharset(bytes('<meta http-equiv="Content-Type" content="text/html; charset=euc-jp">'))).toBe("euc-jp");
    expect(prescanMetaCharset(bytes('<meta content="text/html; charset=big5" http-equiv=content-type>'))).toBe("big5");
    expect(prescanMetaCharset(bytes('<!-- <meta charset="gbk"> --><meta charset="shift_jis">'))).toBe("shift_jis");
    expect(prescanMetaCharset(bytes('<meta charset="utf-16">'))).toBe("utf-8");
    expect(prescanMetaCharset(bytes(`${" ".repeat(1100)}<meta charset="gbk">`))).toBeUndefined();
  });

  test("XML declaration for XML types", () => {
    expect(sniffCharset(bytes('<?xml version="1.0" encoding="windows-1251"?><rss/>'), "application/rss+xml")).toMatchObject({
      charset: "windows-1251",
      source: "xml-declaration",
    });
  });

  test("no label: valid UTF-8 stays UTF-8, otherwise windows-1252; JSON stays UTF-8", () => {
    expect(sniffCharset(bytes(Buffer.from("héllo ✓")), "text/html").charset).toBe("utf-8");
    expect(sniffCharset(CHARSET_SAMPLES.gbk.bytes, "text/html")).toMatchObject({ charset: "windows-1252", source: "default" });
    expect(sniffCharset(CHARSET_SAMPLES.gbk.bytes, "application/json").charset).toBe("utf-8");
  });

  test.each(Object.entries(CHARSET_SAMPLES))("%s decodes from header and from meta", (name, sample) => {
    const fromHeader = decodeText(bytes("<p>", sample.bytes), "text/html", `text/html; charset=${sample.label}`);
    expect(fromHeader).toMatchObject({ charset: name, source: "header" });
    expect(fromHeader.text).toBe(`<p>${sample.text}`);
    const fromMeta = decodeText(bytes(`<meta charset="${sample.label}"><p>`, sample.bytes), "text/html");
    expect(fromMeta.text).toContain(sample.text);
  });
});

describe("helpers", () => {
  test("charsetFromContentType", () => {
    expect(charsetFromContentType("text/html; charset=UTF-8")).toBe("UTF-8");
    expect(charsetFromContentType('text/html;charset="gbk"; foo=bar')).toBe("gbk");
    expect(charsetFromContentType("text/html")).toBeUndefined();
  });

  test("isTextMimeType", () => {
    for (const t of ["text/html", "text/plain", "application/json", "application/ld+json", "application/xml", "image/svg+xml"]) {
      expect(isTextMimeType(t)).toBe(true);
    }
    for (const t of ["application/pdf", "image/png", "application/octet-stream"]) expect(isTextMimeType(t)).toBe(false);
  });
});

describe("decodeText agrees with sniffCharset (single-decode and cached-decoder paths)", () => {
  test.each([
    ["unlabelled UTF-8", bytes("<p>", Buffer.from("héllo — 日本", "utf8"), "</p>"), "text/html", null],
    ["unlabelled legacy bytes", bytes("<p>caf", new Uint8Array([0xe9]), "</p>"), "text/html", null],
    ["unlabelled invalid JSON", bytes('{"a":"', new Uint8Array([0xff]), '"}'), "application/json", null],
    ["header label, twice", CHARSET_SAMPLES.shift_jis.bytes, "text/html", "text/html; charset=Shift_JIS"],
  ])("%s", (_name, body, mime, header) => {
    const sniffed = sniffCharset(body, mime, header);
    for (let i = 0; i < 2; i++) {
      const decoded = decodeText(body, mime, header);
      expect(decoded.charset).toBe(sniffed.charset);
      expect(decoded.source).toBe(sniffed.source);
      expect(decoded.text).toBe(new TextDecoder(sniffed.charset).decode(body.subarray(sniffed.bomBytes)));
    }
  });
});
