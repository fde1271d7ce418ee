/**
 * `/v2/scrape/{id}/interact` (src/interact) with real Chromium and the fake LLM, through the official SDK: a prompt
 * carried out on a scrape's page step by step; the session keeps the page; stopping it reports its use; bash code
 * (agent-browser commands) and JavaScript code in the same session; the scrape's device, place and actions replayed;
 * a prompt stopped by its session's close; the step and time limits.
 * Set-up in interact-shop.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type Firecrawl from "@mendable/firecrawl-js";
import type { Harness } from "../helpers/harness.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import { model, pageText, useInteractShop } from "./interact-shop.ts";

const ctx = useInteractShop();
let h: Harness;
let app: Firecrawl;
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ h, app, base, llm } = ctx));
const { scrapeId } = ctx;

describe("interact", () => {
  test("a prompt is carried out on the scrape's page step by step; the session keeps the page; stopping it reports its use", async () => {
    llm.reset();
    llm.respond = model;
    const id = await scrapeId();
    const before = h.services.ledger.usage(h.services.keys.verify(h.key)!).creditsUsed;
    const first: any = await app.interact(id, { prompt: "What is the kettle's price?" });
    expect(first).toMatchObject({ success: true, output: "42 EUR", result: "42 EUR", exitCode: 0, killed: false, stderr: "" });
    expect(first.stdout).toBe("clicked element 0\ndone");
    expect(llm.chats()).toHaveLength(2);
    // The page reached the model as data, with its elements numbered.
    expect(pageText(llm.chats()[0]!)).toMatch(/<<<PAGE_CONTENT id=\w+ \(current page\)>>>[\s\S]*\[0\] <button> Show price/);

    // The next prompt finds the page as the last one left it: the price is already shown.
    const second: any = await app.interact(id, { prompt: "Tell me the price again." });
    expect(second.output).toBe("42 EUR");
    expect(second.stdout).toBe("done");
    expect(llm.chats()).toHaveLength(3);
    expect(h.services.ledger.usage(h.services.keys.verify(h.key)!).creditsUsed - before).toBe(2);

    const stopped: any = await app.stopInteraction(id);
    expect(stopped).toMatchObject({ success: true, creditsBilled: 2 });
    expect(stopped.sessionDurationMs).toBeGreaterThan(0);
    expect((await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" })).status).toBe(404);
  }, 30_000);

  test("bash code runs agent-browser commands in the scrape's session, which a prompt then finds as the code left it", async () => {
    llm.reset();
    llm.respond = model;
    const id = await scrapeId();
    const who = h.services.keys.verify(h.key)!;
    const before = h.services.ledger.usage(who).creditsUsed;
    const ran: any = await app.interact(id,  { code: "agent-browser is visible '#price'\nagent-browser click '#show' && agent-browser is visible '#price'\nagent-browser get text '#price'", language: "bash" });
    expect(ran).toMatchObject({ success: true, stdout: "false\ntrue\nPrice: 42 EUR\n", output: "false\ntrue\nPrice: 42 EUR\n", stderr: "", exitCode: 0, killed: false });
    expect(llm.chats()).toHaveLength(0); // code needs no model
    // The prompt finds the price shown: it answers at once, without a click.
    const asked: any = await app.interact(id, { prompt: "What is the price?" });
    expect(asked).toMatchObject({ output: "42 EUR", stdout: "done" });
    expect(h.services.ledger.usage(who).creditsUsed - before).toBe(2);
    // `agent-browser close` ends the session after the script.
    const closed: any = await app.interact(id, { code: "agent-browser close", language: "bash" });
    expect(closed.stdout).toBe("✓ Browser closed\n");
    expect(h.services.interact!.has(id, who.keyId)).toBe(false);
  }, 30_000);

  test("JavaScript code (the SDK's default language) runs with a Playwright-style page on the scrape's session", async () => {
    const id = await scrapeId();
    const ran: any = await app.interact(id, { code: "await page.getByText('Show price').click();\nconsole.log(await page.title());\nreturn await page.textContent('#price');" });
    expect(ran).toMatchObject({ success: true, stdout: "Shop\n", result: "Price: 42 EUR", stderr: "", exitCode: 0, killed: false });
    const again: any = await app.interact(id, { code: "return await page.isVisible('#price')" });
    expect(again.result).toBe("true");
    await app.stopInteraction(id);
  }, 30_000);

  test("the session emulates the scrape's device and place (mobile, location), a batch page's too; a plain scrape's is a desktop", async () => {
    const probe = { code: "return await page.evaluate(() => [screen.width, /Mobile/.test(navigator.userAgent), navigator.language].join(' '))" };
    const phone: any = await app.scrape(`${base}/shop`, { formats: ["markdown"], maxAge: 0, mobile: true, location: { country: "DE" } });
    expect(((await app.interact(phone.metadata.scrapeId, probe)) as any).result).toBe("412 true de-DE");
    await app.stopInteraction(phone.metadata.scrapeId);

    const job = await app.batchScrape([`${base}/shop`], { options: { formats: ["markdown"], mobile: true }, pollInterval: 1 });
    const pageId = job.data[0]!.metadata!.scrapeId as string;
    expect(((await app.interact(pageId, probe)) as any).result).toBe("412 true en-US");
    await app.stopInteraction(pageId);

    const desk = await scrapeId();
    expect(((await app.interact(desk, probe)) as any).result).toBe("1920 false en-US");
    await app.stopInteraction(desk);

    // A screenshot's viewport sized the scrape's page for its picture only: the session's page is the scrape's device.
    const shot: any = await app.scrape(`${base}/shop`, { formats: ["markdown"], maxAge: 0, actions: [{ type: "screenshot", viewport: { width: 800, height: 600 } }, { type: "click", selector: "#show" }] });
    const size = { code: "return await page.evaluate(() => innerWidth + 'x' + innerHeight)" };
    expect(((await app.interact(shot.metadata.scrapeId, size)) as any).result).toBe("1920x1080");
    await app.stopInteraction(shot.metadata.scrapeId);
  }, 60_000);

  test("a prompt running when its session is closed is stopped and says so (and is billed)", async () => {
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ action: "wait" }), delayMs: 400 });
    const id = await scrapeId();
    const running = app.interact(id, { prompt: "Wait a while.", timeout: 30 }) as Promise<any>;
    for (let i = 0; i < 100 && !h.services.interact!.has(id, h.services.keys.verify(h.key)!.keyId); i++) await Bun.sleep(20);
    await Bun.sleep(200);
    const closed: any = await app.stopInteraction(id);
    expect(closed).toMatchObject({ success: true, creditsBilled: 1 });
    expect(await running).toMatchObject({ killed: true, exitCode: 124, stderr: "Stopped: the session was closed." });
  }, 30_000);

  test("the session replays the scrape's actions: the page is as the scrape left it (a scrape, and a batch page)", async () => {
    llm.reset();
    llm.respond = model;
    const doc: any = await app.scrape(`${base}/shop`, { formats: ["markdown"], maxAge: 0, actions: [{ type: "click", selector: "#show" }, { type: "screenshot" }] });
    expect(doc.markdown).toContain("Price: 42 EUR");
    // The price is already shown when the session opens: the model answers without clicking.
    const out: any = await app.interact(doc.metadata.scrapeId, { prompt: "What is the kettle's price?" });
    expect(out).toMatchObject({ output: "42 EUR", stdout: "done" });
    await app.stopInteraction(doc.metadata.scrapeId);

    const job = await app.batchScrape([`${base}/shop`], { options: { formats: ["markdown"], actions: [{ type: "click", selector: "#show" }] }, pollInterval: 1 });
    const pageId = job.data[0]!.metadata!.scrapeId as string;
    const fromBatch: any = await app.interact(pageId, { prompt: "What is the kettle's price?" });
    expect(fromBatch).toMatchObject({ output: "42 EUR", stdout: "done" });
    await app.stopInteraction(pageId);

    // The page changed since the scrape: the replay fails with a 422 naming the scrape's own action (the third).
    const once: any = await app.scrape(`${base}/once`, { formats: ["markdown"], maxAge: 0, actions: [{ type: "screenshot" }, { type: "scrape" }, { type: "click", selector: "#show" }] });
    const failed = await h.request(`/v2/scrape/${once.metadata.scrapeId}/interact`, { method: "POST", json: { prompt: "Price?" } });
    expect(failed.status).toBe(422);
    expect(await failed.json()).toMatchObject({ success: false, code: "INTERACT_REPLAY_FAILED", details: { index: 2, type: "click" } });

    // Actions that navigated (a link followed): the session starts where the scrape started and ends where it ended,
    // not on the final page with the actions replayed there (a 422: no #go on /shop).
    const moved: any = await app.scrape(`${base}/landing`, { formats: ["markdown"], maxAge: 0, actions: [{ type: "click", selector: "#go" }, { type: "wait", milliseconds: 300 }] });
    expect(moved.metadata.url).toBe(`${base}/shop`);
    const onShop: any = await app.interact(moved.metadata.scrapeId, { prompt: "What is the kettle's price?" });
    expect(onShop).toMatchObject({ output: "42 EUR", stdout: "clicked element 0\ndone" });
    await app.stopInteraction(moved.metadata.scrapeId);

    // Without actions the session starts from the bare page, as before.
    const plainId = await scrapeId();
    expect(((await app.interact(plainId, { prompt: "What is the kettle's price?" })) as any).stdout).toBe("clicked element 0\ndone");
    await app.stopInteraction(plainId);
  });

  test("the step limit and the time limit end a prompt with what happened, not an error", async () => {
    const id = await scrapeId();
    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ action: "wait" }) });
    const exhausted: any = await app.interact(id, { prompt: "Wait forever." });
    expect(exhausted).toMatchObject({ success: true, output: "", exitCode: 1, killed: false, stderr: "No answer after 10 steps." });
    expect(exhausted.stdout.split("\n")).toHaveLength(10);

    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ action: "wait" }), delayMs: 3_000 });
    const t0 = performance.now();
    const killed: any = await app.interact(id, { prompt: "Slowly.", timeout: 1 });
    expect(killed).toMatchObject({ success: true, killed: true, exitCode: 124, stderr: "Stopped after 1 s." });
    expect(performance.now() - t0).toBeLessThan(2_500);
    await app.stopInteraction(id);
  }, 30_000);

});
