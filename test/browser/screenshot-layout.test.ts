/**
 * A full-page screenshot taken while a page has no layout yet (a document just replaced by a reload is 0 pixels wide
 * for a moment) is tried again until the page is laid out, within the deadline; it failed the scrape with a 500 in a
 * CI run ("Cannot take screenshot with 0 width", a self-reloading page's screenshot action).
 */
import { expect, test } from "bun:test";
import { untilLaidOut } from "../../src/engines/browser/screenshot.ts";

test("a capture refused for a 0-wide page is tried again; other errors and a passed deadline end it", async () => {
  let calls = 0;
  const shot = await untilLaidOut(performance.now() + 5000, async () => {
    if (++calls < 3) throw new Error("Protocol error (Page.captureScreenshot): Cannot take screenshot with 0 width.");
    return "png";
  });
  expect([shot, calls]).toEqual(["png", 3]);
  await expect(untilLaidOut(performance.now() + 5000, async () => { throw new Error("Page is too large."); })).rejects.toThrow("too large");
  const t0 = performance.now();
  await expect(untilLaidOut(performance.now() + 300, async () => { throw new Error("Cannot take screenshot with 0 height."); })).rejects.toThrow("0 height");
  expect(performance.now() - t0).toBeLessThan(1000);
});
