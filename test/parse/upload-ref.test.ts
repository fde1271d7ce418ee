/**
 * The upload flow of `POST /v2/parse` (parse/upload-refs.ts), as the Firecrawl MCP server's `firecrawl_parse` drives
 * it when it cannot send the file itself: `POST /v2/parse/upload-url`, a `PUT` of the file to the URL with no API
 * key, then `POST /v2/parse {uploadRef, …options}`. Each step's refusals, and the reservations' lifetimes.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UPLOAD_URL_TTL_MS, UPLOADED_FILE_TTL_MS, UploadRefStore } from "../../src/parse/upload-refs.ts";
import { migrate } from "../../src/storage/database.ts";
import { FileStore } from "../../src/storage/files.ts";
import { buildDocumentFixtures } from "../fixtures/documents/fixtures.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let apiUrl: string;
let fx: Awaited<ReturnType<typeof buildDocumentFixtures>>;
const dirs: string[] = [];

beforeAll(async () => {
  fx = await buildDocumentFixtures();
  h = await createHarness({ maxUploadBytes: 2 * 1024 * 1024 });
  apiUrl = h.listen();
}, 30_000);

afterAll(async () => {
  await h.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const post = async (path: string, body: unknown, key: string | null = h.key) => {
  const res = await fetch(`${apiUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** A PUT as the MCP server's curl command sends it: the answer's headers, no API key. */
const put = async (url: string, bytes: Uint8Array | string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: "PUT", headers, body: typeof bytes === "string" ? bytes : Buffer.from(bytes) });
  return { status: res.status, body: (await res.json()) as any };
};

describe("the parse upload flow", () => {
  test("upload-url, a keyless PUT, then parse by uploadRef: the document as a multipart upload gives it", async () => {
    const reserved = await post("/v2/parse/upload-url", { filename: "report.pdf", contentType: "application/pdf" });
    expect(reserved.status).toBe(200);
    const data = reserved.body.data;
    expect(data.uploadUrl).toMatch(new RegExp(`^${apiUrl}/v2/parse/upload/[0-9a-f]{64}$`));
    expect(data.uploadRef).toBeString();
    expect(data.method).toBe("PUT");
    expect(data.headers).toEqual({ "Content-Type": "application/pdf" });
    expect(Date.parse(data.expiresAt) - Date.now()).toBeGreaterThan(UPLOAD_URL_TTL_MS - 60_000);
    expect(data.maxSizeBytes).toBe(2 * 1024 * 1024);

    const sent = await put(data.uploadUrl, fx.textPdf, data.headers);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toEqual({ uploadRef: data.uploadRef, sizeBytes: fx.textPdf.byteLength });

    const parsed = await post("/v2/parse", { uploadRef: data.uploadRef, formats: ["markdown", "links"], origin: "mcp-fastmcp" });
    expect(parsed.status).toBe(200);
    expect(parsed.body.data.markdown).toContain("# Annual Report 2026\n");
    expect(parsed.body.data.links).toContain("https://example.org/methodology");
    expect(parsed.body.data.metadata.sourceURL).toBe("file:///report.pdf");
    expect(parsed.body.data.metadata.creditsUsed).toBe(2);

    // One file per URL; the file may be parsed again, with other options.
    expect((await put(data.uploadUrl, fx.textPdf)).body.code).toBe("UPLOAD_ALREADY_RECEIVED");
    const again = await post("/v2/parse", { uploadRef: data.uploadRef, formats: ["html"] });
    expect(again.status).toBe(200);
    expect(again.body.data.html).toContain("Annual Report 2026");
  });

  test("the type: declared, else the PUT's Content-Type, else the file name's extension", async () => {
    const untyped = (await post("/v2/parse/upload-url", { filename: "page" })).body.data;
    expect(untyped.headers).toEqual({ "Content-Type": "application/octet-stream" });
    expect((await put(untyped.uploadUrl, "<html><body><main><h1>Sent typed</h1><p>By the PUT.</p></main></body></html>", { "content-type": "text/html" })).status).toBe(200);
    expect((await post("/v2/parse", { uploadRef: untyped.uploadRef })).body.data.markdown).toContain("# Sent typed");

    const byName = (await post("/v2/parse/upload-url", { filename: "notes.html" })).body.data;
    expect((await put(byName.uploadUrl, "<h1>From the name</h1>")).status).toBe(200);
    expect((await post("/v2/parse", { uploadRef: byName.uploadRef })).body.data.markdown).toContain("# From the name");
  });

  test("refusals: not uploaded yet 409, unknown or another key's ref 404, over the size 413 (then a retry works)", async () => {
    const data = (await post("/v2/parse/upload-url", { filename: "a.html", declaredSizeBytes: 20 })).body.data;
    expect(data.maxSizeBytes).toBe(20);
    const early = await post("/v2/parse", { uploadRef: data.uploadRef });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("UPLOAD_NOT_RECEIVED");

    const big = await put(data.uploadUrl, "<p>" + "x".repeat(40) + "</p>");
    expect(big.status).toBe(413);
    expect((await put(data.uploadUrl, "")).status).toBe(400);
    expect((await put(data.uploadUrl, "<p>small one</p>")).status).toBe(200);

    const other = h.services.keys.create("other").key;
    const foreign = await post("/v2/parse", { uploadRef: data.uploadRef }, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("UPLOAD_NOT_FOUND");
    expect((await post("/v2/parse", { uploadRef: "no-such-ref" })).status).toBe(404);
    expect((await post("/v2/parse", { uploadRef: data.uploadRef })).status).toBe(200);

    expect((await put(`${apiUrl}/v2/parse/upload/${"0".repeat(64)}`, "x")).status).toBe(404);
    expect((await put(`${apiUrl}/v2/parse/upload/not-an-id`, "x")).status).toBe(404);
  });

  test("bad upload-url bodies: 400 naming the field, 413 for a declared size over the limit, 401 without a key", async () => {
    const missing = await post("/v2/parse/upload-url", {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.details)).toContain("filename");
    const unknown = await post("/v2/parse/upload-url", { filename: "a.pdf", bucket: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].keys).toEqual(["bucket"]);
    expect((await post("/v2/parse/upload-url", { filename: "a.pdf", declaredSizeBytes: 0 })).status).toBe(400);
    expect((await post("/v2/parse/upload-url", { filename: "a.pdf", declaredSizeBytes: 3 * 1024 * 1024 })).status).toBe(413);
    expect((await post("/v2/parse/upload-url", { filename: "a.pdf" }, null)).status).toBe(401);
    // A JSON parse body without an uploadRef says what the route takes.
    const noRef = await post("/v2/parse", { formats: ["markdown"] });
    expect(noRef.status).toBe(400);
    expect(noRef.body.error).toContain("uploadRef");
    // Options are validated as for a multipart upload.
    const data = (await post("/v2/parse/upload-url", { filename: "b.html" })).body.data;
    await put(data.uploadUrl, "<p>hi</p>");
    const refused = await post("/v2/parse", { uploadRef: data.uploadRef, actions: [{ type: "wait", milliseconds: 5 }] });
    expect(refused.body.code).toBe("PARSE_UNSUPPORTED_OPTIONS");
  });

  test("zeroDataRetention: the file is gone once parsed", async () => {
    const data = (await post("/v2/parse/upload-url", { filename: "c.html" })).body.data;
    await put(data.uploadUrl, "<h1>Private</h1>");
    const fileCount = () => readdirSync(join(h.services.config.dataDir, "files")).length;
    const before = fileCount();
    const parsed = await post("/v2/parse", { uploadRef: data.uploadRef, zeroDataRetention: true });
    expect(parsed.status).toBe(200);
    expect(parsed.body.data.markdown).toContain("# Private");
    expect(fileCount()).toBe(before - 1);
    expect((await post("/v2/parse", { uploadRef: data.uploadRef })).status).toBe(404);
    // A parse that fails keeps nothing either.
    const bad = (await post("/v2/parse/upload-url", { filename: "tool.bin" })).body.data;
    await put(bad.uploadUrl, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
    expect((await post("/v2/parse", { uploadRef: bad.uploadRef, zeroDataRetention: true })).status).toBe(422);
    expect((await post("/v2/parse", { uploadRef: bad.uploadRef })).status).toBe(404);
  });
});

describe("upload reservations", () => {
  test("a URL takes its file within the hour; the file lives a day after it came; prune drops both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-uploads-"));
    dirs.push(dir);
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let clock = 1_000_000;
    const files = new FileStore(db, dir, () => clock);
    const store = new UploadRefStore(db, files, () => clock);

    const late = store.reserve("k", "late.pdf", "", 100);
    clock += UPLOAD_URL_TTL_MS;
    expect(() => store.claim(late.uploadId)).toThrow(expect.objectContaining({ code: "UPLOAD_NOT_FOUND" }));
    await expect(store.take(late.uploadRef, "k")).rejects.toMatchObject({ code: "UPLOAD_NOT_FOUND" });

    const kept = store.reserve("k", "kept.html", "text/html", 100);
    const pending = store.claim(kept.uploadId);
    // A second PUT while the first reads its body is refused; a failed read gives the URL back.
    expect(() => store.claim(kept.uploadId)).toThrow(expect.objectContaining({ code: "UPLOAD_ALREADY_RECEIVED" }));
    store.release(pending);
    await store.receive(store.claim(kept.uploadId), new TextEncoder().encode("<p>x</p>"), "");
    expect((await store.take(kept.uploadRef, "k")).contentType).toBe("text/html");
    // Only the hash of the URL's id is stored.
    expect(JSON.stringify(db.query("SELECT * FROM parse_uploads").all())).not.toContain(kept.uploadId);

    expect(store.prune()).toBe(1); // the late reservation
    clock += UPLOADED_FILE_TTL_MS;
    await expect(store.take(kept.uploadRef, "k")).rejects.toMatchObject({ code: "UPLOAD_NOT_FOUND" });
    expect(store.prune()).toBe(1);
    expect(readdirSync(join(dir, "files"))).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
