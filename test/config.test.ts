import { availableParallelism } from "node:os";
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { ConfigError, loadConfig, testConfig } from "../src/config.ts";

describe("config", () => {
  test("defaults follow the run contract", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3002);
    expect(c.host).toBe("0.0.0.0");
    expect(c.authEnabled).toBe(true);
    expect(c.allowPrivateNetwork).toBe(false);
    expect(c.ollamaBaseUrl).toBe("http://127.0.0.1:11434");
    expect(c.apiKeys).toEqual([]);
    expect(c.publicUrl).toBe("");
  });

  test("environment overrides defaults", () => {
    const c = loadConfig({
      PORT: "4000",
      HOST: "127.0.0.1",
      CRAWLBOX_DATA_DIR: "/tmp/cbx",
      CRAWLBOX_API_KEYS: "abcdefgh1, ijklmnop2 ,",
      CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true",
      CRAWLBOX_WEBHOOK_SECRET: "s3cret",
      CRAWLBOX_PUBLIC_URL: "https://crawl.example.com/",
      CHROME_PATH: "/usr/bin/chromium",
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      OPENAI_API_KEY: "sk-x",
      MODEL_NAME: "llama3",
      CRAWLBOX_AUTH: "off",
    });
    expect(c.port).toBe(4000);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dataDir).toBe("/tmp/cbx");
    expect(c.apiKeys).toEqual(["abcdefgh1", "ijklmnop2"]);
    expect(c.allowPrivateNetwork).toBe(true);
    expect(c.webhookSecret).toBe("s3cret");
    expect(c.publicUrl).toBe("https://crawl.example.com");
    expect(c.chromePath).toBe("/usr/bin/chromium");
    expect(c.openaiBaseUrl).toBe("http://127.0.0.1:8000/v1");
    expect(c.modelName).toBe("llama3");
    expect(c.authEnabled).toBe(false);
  });

  test("CRAWLBOX_AUTH=off only with a loopback HOST (reliability.md B6)", () => {
    expect(() => loadConfig({ CRAWLBOX_AUTH: "off" })).toThrow(/CRAWLBOX_AUTH=off needs HOST to be a loopback address/);
    expect(() => loadConfig({ CRAWLBOX_AUTH: "off", HOST: "10.0.0.5" })).toThrow(ConfigError);
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]) expect(loadConfig({ CRAWLBOX_AUTH: "off", HOST: host }).authEnabled).toBe(false);
    expect(loadConfig({ HOST: "0.0.0.0" }).authEnabled).toBe(true);
  });

  test("the mail relay: smtp:// or smtps:// URLs, a sender address", () => {
    expect(loadConfig({}).smtpUrl).toBe("");
    const c = loadConfig({ CRAWLBOX_SMTP_URL: "smtp://user:pw@relay.internal:587?starttls=required", CRAWLBOX_SMTP_FROM: "watch@example.org" });
    expect([c.smtpUrl, c.smtpFrom]).toEqual(["smtp://user:pw@relay.internal:587?starttls=required", "watch@example.org"]);
    expect(loadConfig({ CRAWLBOX_SMTP_URL: "smtps://relay.internal" }).smtpUrl).toBe("smtps://relay.internal");
    expect(() => loadConfig({ CRAWLBOX_SMTP_URL: "http://relay.internal" })).toThrow(/CRAWLBOX_SMTP_URL must be/);
    expect(() => loadConfig({ CRAWLBOX_SMTP_URL: "smtp://relay.internal?starttls=maybe" })).toThrow(/CRAWLBOX_SMTP_URL must be/);
    // Only "false" turns certificate checks off: another value would leave them on without a word.
    expect(() => loadConfig({ CRAWLBOX_SMTP_URL: "smtp://relay.internal?tls_verify=nope" })).toThrow(/CRAWLBOX_SMTP_URL must be/);
    expect(loadConfig({ CRAWLBOX_SMTP_URL: "smtps://relay.internal?tls_verify=false" }).smtpUrl).toBe("smtps://relay.internal?tls_verify=false");
    expect(() => loadConfig({ CRAWLBOX_SMTP_FROM: "nobody" })).toThrow(/CRAWLBOX_SMTP_FROM must be an e-mail address/);
  });

  test("invalid values are all reported at once", () => {
    try {
      loadConfig({ PORT: "70000", CRAWLBOX_ALLOW_PRIVATE_NETWORK: "maybe", CRAWLBOX_PUBLIC_URL: "ftp://x", CRAWLBOX_AUTH: "sometimes" });
      throw new Error("expected ConfigError");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join("\n");
      expect(problems).toContain("PORT");
      expect(problems).toContain("CRAWLBOX_ALLOW_PRIVATE_NETWORK");
      expect(problems).toContain("CRAWLBOX_PUBLIC_URL");
      expect(problems).toContain("CRAWLBOX_AUTH");
    }
  });

  test("integers are decimal digits: hex, binary and exponent forms are refused", () => {
    for (const v of ["0x10", "1e4", "0b11", "12.0", "+5"]) expect(() => loadConfig({ CRAWLBOX_OCR_WORKERS: v })).toThrow(/CRAWLBOX_OCR_WORKERS must be an integer/);
    expect(loadConfig({ CRAWLBOX_OCR_WORKERS: " 3 " }).ocrWorkers).toBe(3);
  });

  test("testConfig makes a temporary data folder only when none is given (one made and overridden was never removed)", () => {
    const made = () => readdirSync(tmpdir()).filter((n) => n.startsWith("crawlbox-test-")).length;
    const before = made();
    expect(testConfig({ dataDir: "/tmp/given-by-the-test" }).dataDir).toBe("/tmp/given-by-the-test");
    expect(made()).toBe(before);
  });

  test("document workers: 2 by default (1 on a single core), 1–64", () => {
    expect(loadConfig({}).documentWorkers).toBe(Math.min(2, availableParallelism()));
    expect(loadConfig({ CRAWLBOX_DOCUMENT_WORKERS: "5" }).documentWorkers).toBe(5);
    for (const v of ["0", "65"]) expect(() => loadConfig({ CRAWLBOX_DOCUMENT_WORKERS: v })).toThrow(/CRAWLBOX_DOCUMENT_WORKERS/);
  });
});
