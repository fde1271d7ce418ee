/**
 * Body framing used by the keep-alive proxy: where a body ends, and which framings are refused.
 */
import { describe, expect, test } from "bun:test";
import { BodyTracker, requestFraming, responseFraming } from "../../src/egress/framing.ts";
import { CrawlboxError } from "../../src/errors.ts";

const enc = (s: string) => Buffer.from(s, "latin1");

/** Feeds `wire` to a tracker split at every possible point; returns the body length each time. */
function bodyLengthsAtEverySplit(make: () => BodyTracker, wire: string): number[] {
  const bytes = enc(wire);
  const out: number[] = [];
  for (let cut = 0; cut <= bytes.byteLength; cut++) {
    const t = make();
    let n = t.consume(bytes.subarray(0, cut));
    if (!t.done) n += t.consume(bytes.subarray(cut));
    expect(t.done).toBe(true);
    out.push(n);
  }
  return out;
}

describe("BodyTracker", () => {
  test("Content-Length: exactly N bytes, the rest belongs to the next message", () => {
    const t = new BodyTracker({ kind: "length", length: 5 });
    expect(t.consume(enc("abc"))).toBe(3);
    expect(t.done).toBe(false);
    expect(t.consume(enc("deGET / HTTP/1.1"))).toBe(2);
    expect(t.done).toBe(true);
    expect(t.consume(enc("more"))).toBe(0);
  });

  test("chunked, with extensions and trailers, split anywhere", () => {
    const body = "5;ext=1\r\nhello\r\n1A\r\n" + "x".repeat(26) + "\r\n0\r\nTrailer: yes\r\n\r\n";
    const lengths = bodyLengthsAtEverySplit(() => new BodyTracker({ kind: "chunked" }), `${body}GET /next HTTP/1.1\r\n\r\n`);
    expect(new Set(lengths)).toEqual(new Set([body.length]));
  });

  test("chunked without trailers", () => {
    const t = new BodyTracker({ kind: "chunked" });
    expect(t.consume(enc("0\r\n\r\nX"))).toBe(5);
    expect(t.done).toBe(true);
  });

  test.each([
    ["no size", "\r\n"],
    ["bad size", "g\r\n"],
    ["bare LF after size", "5\nhello\r\n0\r\n\r\n"],
    ["missing CRLF after data", "5\r\nhelloX\r\n"],
    ["bare LF in trailers", "0\r\nA: b\n\r\n"],
    ["size overflow", `${"f".repeat(14)}\r\n`],
    ["LF inside an extension", "5;a\nb\r\n"],
  ])("malformed chunked framing throws: %s", (_name, wire) => {
    const t = new BodyTracker({ kind: "chunked" });
    expect(() => t.consume(enc(wire))).toThrow();
  });

  test("close-delimited and empty bodies", () => {
    const c = new BodyTracker({ kind: "close" });
    expect(c.consume(enc("anything"))).toBe(8);
    expect(c.done).toBe(false);
    expect(new BodyTracker({ kind: "none" }).done).toBe(true);
  });
});

describe("requestFraming", () => {
  const h = (...pairs: string[][]) => pairs as Array<[string, string]>;
  test("lengths, chunked and no body", () => {
    expect(requestFraming(h(["Content-Length", "12"]))).toEqual({ kind: "length", length: 12 });
    expect(requestFraming(h(["content-length", "7, 7"]))).toEqual({ kind: "length", length: 7 });
    expect(requestFraming(h(["Transfer-Encoding", "chunked"]))).toEqual({ kind: "chunked" });
    expect(requestFraming(h(["Host", "x"]))).toEqual({ kind: "none" });
    expect(requestFraming(h(["Content-Length", "0"]))).toEqual({ kind: "none" });
  });

  test.each([
    ["TE and CL together", [["Transfer-Encoding", "chunked"], ["Content-Length", "5"]]],
    ["a coding other than chunked", [["Transfer-Encoding", "gzip"]]],
    ["chunked not alone", [["Transfer-Encoding", "gzip, chunked"]]],
    ["two TE fields", [["Transfer-Encoding", "chunked"], ["Transfer-Encoding", "chunked"]]],
    ["conflicting lengths", [["Content-Length", "5"], ["Content-Length", "6"]]],
    ["a length list that disagrees", [["Content-Length", "5, 6"]]],
    ["a signed length", [["Content-Length", "+5"]]],
    ["a hex length", [["Content-Length", "0x5"]]],
  ])("refuses %s with a 400", (_name, headers) => {
    let err: unknown;
    try {
      requestFraming(headers as Array<[string, string]>);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CrawlboxError);
    expect((err as CrawlboxError).status).toBe(400);
  });
});

describe("responseFraming", () => {
  const h = (...pairs: string[][]) => pairs as Array<[string, string]>;
  test("no body for HEAD, 1xx, 204 and 304, whatever the headers say", () => {
    expect(responseFraming("HEAD", 200, h(["Content-Length", "100"])).framing).toEqual({ kind: "none" });
    expect(responseFraming("GET", 204, h(["Content-Length", "100"])).framing).toEqual({ kind: "none" });
    expect(responseFraming("GET", 304, h(["Transfer-Encoding", "chunked"])).framing).toEqual({ kind: "none" });
  });

  test("chunked wins over Content-Length but the connection must close", () => {
    expect(responseFraming("GET", 200, h(["Transfer-Encoding", "chunked"], ["Content-Length", "3"]))).toEqual({
      framing: { kind: "chunked" },
      mustClose: true,
    });
  });

  test("no length, or a non-chunked coding, is close-delimited", () => {
    expect(responseFraming("GET", 200, h())).toEqual({ framing: { kind: "close" }, mustClose: true });
    expect(responseFraming("GET", 200, h(["Transfer-Encoding", "gzip"]))).toEqual({ framing: { kind: "close" }, mustClose: true });
  });

  test("conflicting lengths fail", () => {
    expect(() => responseFraming("GET", 200, h(["Content-Length", "1"], ["Content-Length", "2"]))).toThrow();
  });
});
