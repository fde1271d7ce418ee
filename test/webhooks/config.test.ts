import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("webhook configuration", () => {
  test("defaults: through the egress gate, 10 s timeout", () => {
    const c = loadConfig({});
    expect(c.allowPrivateWebhooks).toBe(false);
    expect(c.webhookTimeoutMs).toBe(10_000);
  });
  test("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS and CRAWLBOX_WEBHOOK_TIMEOUT_MS are read and validated", () => {
    const c = loadConfig({ CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS: "true", CRAWLBOX_WEBHOOK_TIMEOUT_MS: "2500" });
    expect(c.allowPrivateWebhooks).toBe(true);
    expect(c.webhookTimeoutMs).toBe(2500);
    expect(() => loadConfig({ CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS: "maybe" })).toThrow(ConfigError);
    expect(() => loadConfig({ CRAWLBOX_WEBHOOK_TIMEOUT_MS: "0" })).toThrow(ConfigError);
  });
  test("a whsec_ secret must carry base64; any other secret is taken as is", () => {
    expect(() => loadConfig({ CRAWLBOX_WEBHOOK_SECRET: "whsec_not base64!" })).toThrow("CRAWLBOX_WEBHOOK_SECRET");
    expect(loadConfig({ CRAWLBOX_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }).webhookSecret).toStartWith("whsec_");
    expect(loadConfig({ CRAWLBOX_WEBHOOK_SECRET: "plain secret" }).webhookSecret).toBe("plain secret");
  });
});
