/**
 * The puppeteer-core patch (scripts/patches/puppeteer-core@25.16.0.patch): puppeteer tags each evaluation with its
 * caller's stack frame, the third one, which JavaScriptCore does not have when the call comes from a shallow stack
 * (a timer or promise callback); it then threw "undefined is not an object (evaluating 'site.toString')" and failed
 * the click or evaluate that asked (seen as a 500 on a click action while the page reloaded itself).
 */
import { describe, expect, test } from "bun:test";
import { withSourcePuppeteerURLIfNone } from "puppeteer-core/internal/common/util.js";

describe("puppeteer under Bun", () => {
  test("an evaluation tagged from a timer callback (a stack without a third frame) does not throw", async () => {
    const outcome = await new Promise<string>((resolve) =>
      setTimeout(() => {
        try {
          withSourcePuppeteerURLIfNone("evaluate", {});
          resolve("tagged");
        } catch (err) {
          resolve(String(err));
        }
      }, 0),
    );
    expect(outcome).toBe("tagged");
  });
});
