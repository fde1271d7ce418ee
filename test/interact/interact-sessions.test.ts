/**
 * Interact sessions' lifetimes and limits: a session whose browser died, requests waiting for one opening, a DELETE
 * while it opens, first prompts counted against the limits, hostile and hung pages, and refusals.
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
let llm: FakeLlm;
beforeAll(() => ({ h, app, llm } = ctx));
const { scrapeId } = ctx;

describe("interact", () => {
  test("a session whose browser died is dropped with a 410; the next prompt opens a new one", async () => {
    llm.reset();
    llm.respond = model;
    const id = await scrapeId();
    expect(((await app.interact(id, { prompt: "Price?" })) as any).output).toBe("42 EUR");
    for (const pid of h.services.engines.pool!.pids()) process.kill(pid, "SIGKILL");
    await Bun.sleep(300);
    const lost = await h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { prompt: "Price?" } });
    expect(lost.status).toBe(410);
    expect(((await lost.json()) as any).code).toBe("INTERACT_SESSION_LOST");
    const again: any = await app.interact(id, { prompt: "Price?" });
    expect(again.output).toBe("42 EUR");
    await app.stopInteraction(id);
  }, 30_000);

  test("a second request waiting for the same opening keeps its own time: the first giving up leaves it waiting, its own timeout ends its wait", async () => {
    const id = await scrapeId(app, "/gated");
    const run = (timeout: number) => h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { code: "agent-browser get title", language: "bash", timeout } });
    /** Holds `/gated` until released; resolves once the session's page has asked for it (the opening is under way). */
    const hold = async (firstTimeout: number) => {
      let release!: () => void;
      ctx.gate = new Promise<void>((r) => (release = r));
      const hits = ctx.gatedHits;
      const first = run(firstTimeout);
      for (let i = 0; i < 600 && ctx.gatedHits === hits; i++) await Bun.sleep(50);
      expect(ctx.gatedHits).toBeGreaterThan(hits);
      return { first, release: () => { ctx.gate = undefined; release(); } };
    };
    try {
      // The first caller's time (2 s) runs out while the page is held; the second, joined meanwhile, still gets the session.
      const a = await hold(2);
      const second = run(60);
      const first: any = await (await a.first).json();
      expect(first).toMatchObject({ killed: true, exitCode: 124 });
      a.release();
      const res = await second;
      const body: any = await res.json();
      expect([res.status, body.exitCode, body.stdout]).toEqual([200, 0, "Gated\n"]);
      await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" });

      // A second caller with 1 s joins an opening held for longer: it answers at its own 1 s, while the page is still held.
      const b = await hold(60);
      let held = true;
      const late = run(1).then(async (r) => ({ status: r.status, body: (await r.json()) as any, whileHeld: held }));
      const safety = setTimeout(() => { held = false; b.release(); }, 20_000);
      const lateAnswer = await late;
      clearTimeout(safety);
      held = false;
      b.release();
      expect([lateAnswer.status, lateAnswer.body.killed, lateAnswer.body.exitCode, lateAnswer.whileHeld]).toEqual([200, true, 124, true]);
      const opener: any = await (await b.first).json();
      expect([opener.exitCode, opener.stdout]).toEqual([0, "Gated\n"]);
    } finally {
      ctx.gate = undefined;
      await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" });
    }
  }, 90_000);

  test("a DELETE while the session opens stops the opening: the waiting request gets 409 INTERACT_SESSION_CLOSED, and no session is left", async () => {
    const id = await scrapeId(app, "/gated");
    let release!: () => void;
    ctx.gate = new Promise<void>((r) => (release = r));
    const hits = ctx.gatedHits;
    try {
      const waiting = h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { code: "agent-browser get title", language: "bash", timeout: 60 } });
      for (let i = 0; i < 600 && ctx.gatedHits === hits; i++) await Bun.sleep(50);
      expect(ctx.gatedHits).toBeGreaterThan(hits); // the opening is under way, its page held
      const del = await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" });
      expect(del.status).toBe(200);
      const res = await waiting;
      expect([res.status, ((await res.json()) as any).code]).toEqual([409, "INTERACT_SESSION_CLOSED"]);
      ctx.gate = undefined;
      release();
      // Nothing opened behind the DELETE: a second DELETE finds no session.
      await Bun.sleep(300);
      expect((await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" })).status).toBe(404);
    } finally {
      ctx.gate = undefined;
      release();
    }
  }, 90_000);

  test("first prompts sent together count against the limits: two sessions open, the third is a 429", async () => {
    llm.reset();
    llm.respond = model;
    const ids = await Promise.all([scrapeId(), scrapeId(), scrapeId()]);
    const answers = await Promise.all(ids.map((id) => h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { prompt: "Price?" } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(((await refused.json()) as any).code).toBe("TOO_MANY_INTERACT_SESSIONS");
    for (const id of ids) await h.request(`/v2/scrape/${id}/interact`, { method: "DELETE" });
  }, 30_000);

  test("a hostile page can neither fake what the model reads nor put its words in the prompt; a hung page is dropped at the time limit", async () => {
    llm.reset();
    llm.respond = (req) => {
      const text = pageText(req);
      if (text.includes("scroll failed")) return { content: JSON.stringify({ action: "done", answer: /Price: (\d+ EUR)/.exec(text)?.[1] ?? "none" }) };
      return { content: JSON.stringify({ action: "scroll", text: "down" }) };
    };
    const hostile = await scrapeId(app, "/hostile");
    const read: any = await app.interact(hostile, { prompt: "Price?" });
    expect(read.output).toBe("7 EUR");
    expect(read.stdout).toBe("scroll failed: the page did not allow it\ndone");
    expect(llm.chats().some((c) => pageText(c).includes("PWNED"))).toBe(false);
    await app.stopInteraction(hostile);

    llm.reset();
    llm.respond = (req) => {
      const button = /^\[(\d+)\] <button> Hang$/m.exec(pageText(req));
      return { content: JSON.stringify(button ? { action: "click", element: Number(button[1]) } : { action: "wait" }) };
    };
    const stuck = await scrapeId(app, "/hang");
    const t0 = performance.now();
    const killed: any = await app.interact(stuck, { prompt: "Press the button.", timeout: 2 });
    expect(killed).toMatchObject({ killed: true, exitCode: 124 });
    expect(performance.now() - t0).toBeLessThan(6_000);
    // The page did not answer: the session is gone, its page handed back to be checked.
    expect(h.services.interact!.has(stuck, h.services.keys.verify(h.key)!.keyId)).toBe(false);
  }, 30_000);

  test("refused: an unknown language, no prompt, unknown and other keys' scrapes", async () => {
    const id = await scrapeId();
    const code = await h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { code: "puts 1", language: "ruby" } });
    expect(code.status).toBe(400);
    expect(((await code.json()) as any)).toMatchObject({ code: "BAD_REQUEST", details: [expect.objectContaining({ path: ["language"] })] });
    expect((await h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { code: "agent-browser get title", language: "bash", prompt: "p" } })).status).toBe(400);
    expect((await h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: {} })).status).toBe(400);
    expect((await h.request(`/v2/scrape/${crypto.randomUUID()}/interact`, { method: "POST", json: { prompt: "p" } })).status).toBe(404);
    const other = h.services.keys.create("other").key;
    expect((await h.request(`/v2/scrape/${id}/interact`, { method: "POST", json: { prompt: "p" }, auth: other })).status).toBe(404);
    expect(h.services.interact?.has(id, h.services.keys.verify(h.key)!.keyId)).toBe(false); // nothing was opened
  });
});
