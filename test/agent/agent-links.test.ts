/**
 * What an agent run's model is shown and how its choices and answers are taken (src/agent/explore.ts, link-labels.ts,
 * answer.ts): candidate links carry their text from the page (and rank by it), a pick that asks for pages and says it
 * is done reads them first, and an empty chat-mode answer fails the run with `LLM_INVALID_ANSWER`'s message
 * instead of completing with `message: ""`. Through the API with the shop of agent-shop.ts, and explore() with a
 * stand-in model that records what it was shown.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { explore, MAX_CANDIDATES_SHOWN, type ExploreOptions } from "../../src/agent/explore.ts";
import { linkLabels } from "../../src/agent/link-labels.ts";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";
import type { LlmClient } from "../../src/llm/client.ts";
import type { LlmMessage } from "../../src/llm/types.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import { kind, text, useAgentShop } from "./agent-shop.ts";

const shop = useAgentShop();
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ base, llm } = shop));
const { model, finished, start } = shop;

/** The numbered candidate lines of a pick request. */
const candidateLines = (sent: string) => sent.slice(sent.indexOf("Candidate links:")).split("\n").filter((l) => /^\[\d+\] /.test(l));

describe("the link picker", () => {
  test("sees each link's text from the page beside its URL", async () => {
    llm.reset();
    llm.respond = model;
    const run = await start({ urls: [`${base}/`], prompt: "List the shop's products and their prices" });
    expect((await finished(run.body.id)).status).toBe("completed");
    const pick = llm.chats().find((c) => kind(c) === "pick")!;
    const lines = candidateLines(text(pick));
    expect(lines).toContain(`[${lines.findIndex((l) => l.endsWith(`${base}/kettle`))}] Kettle ${base}/kettle`);
    expect(lines.some((l) => l.endsWith(` About us ${base}/about`))).toBe(true);
  });

  test("ranks by link text: a link whose URL says nothing is shown when its text matches the task", async () => {
    const shown: string[] = [];
    const llmStub = {
      structured: async (messages: LlmMessage[]) => {
        shown.push(messages.map((m) => m.content).join("\n"));
        return { read: [], done: true };
      },
    } as unknown as LlmClient;
    // 45 product links numbered like /p/0 … /p/44; only the last one's text names the kettle.
    const links = Array.from({ length: 45 }, (_, i) => `http://shop.test/p/${i}`);
    const markdown = links.map((u, i) => `- [${i === 44 ? "Kettle K2, 1.7 litres" : `Item ${i}`}](${u})`).join("\n");
    const o: ExploreOptions = {
      llm: llmStub,
      call: () => ({ deadline: Date.now() + 10_000, tokenBudget: 100_000 }),
      spent: { tokens: 0 },
      task: "What does the kettle cost?",
      urls: ["http://shop.test/"],
      strict: false,
      maxPages: 6,
      read: async (urls) => urls.map((url) => ({ url, markdown, links })),
      search: async () => [],
      affordable: () => true,
      onRead: () => undefined,
      active: () => true,
      warnings: [],
    };
    await explore(o);
    const lines = candidateLines(shown[0]!);
    expect(lines).toHaveLength(MAX_CANDIDATES_SHOWN);
    expect(lines[0]).toBe("[0] Kettle K2, 1.7 litres http://shop.test/p/44");
  });

  test('{"read": [n], "done": true} reads page n, then stops', async () => {
    llm.reset();
    llm.respond = (req) => {
      if (kind(req) !== "pick") return model(req);
      const kettle = candidateLines(text(req)).findIndex((l) => l.endsWith(`${base}/kettle`));
      return { content: JSON.stringify({ read: [kettle], done: true }) };
    };
    const run = await start({ urls: [`${base}/`], prompt: "How much is the kettle?" });
    const s = await finished(run.body.id);
    expect(s.status).toBe("completed");
    expect(s.sources).toEqual([`${base}/`, `${base}/kettle`]);
    expect(s.data).toEqual({ products: [{ name: "Kettle", price: 25 }] });
    // One pick: done was taken after the reading it asked for.
    expect(llm.chats().filter((c) => kind(c) === "pick")).toHaveLength(1);
  });
});

describe("chat mode", () => {
  test("an empty answer fails the run with LLM_INVALID_ANSWER's message, not a completed run saying nothing", async () => {
    llm.reset();
    llm.respond = (req) => (kind(req) === "chat" ? { content: "  \n" } : model(req));
    const run = await start({ urls: [`${base}/kettle`], prompt: "How much is the kettle?", mode: "chat", strictConstrainToURLs: true });
    const s = await finished(run.body.id);
    expect(s.status).toBe("failed");
    expect(s.message).toBeUndefined();
    expect(s.error).toContain("gave an empty answer");
  });
});

test("link labels of a long page with text brackets are read in linear time (a backtracking regex took 60 s on 136 KB)", () => {
  const paragraphs = Array.from({ length: 1200 }, (_, i) => `<p>As the minister said, "the budget [for 2026] is final" [${i}]. Read <a href="/story/${i}">Story number ${i}</a> for more.</p>`);
  const markdown = htmlToMarkdown(paragraphs.join(""));
  expect(markdown.length).toBeGreaterThan(130_000);
  const started = performance.now();
  const labels = linkLabels(markdown, "https://news.test/");
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(labels.size).toBe(1200);
  expect(labels.get("https://news.test/story/1199")).toBe("Story number 1199");
  // One link after thousands of escaped brackets is still found.
  expect(linkLabels(`${"x \\[a\\] ".repeat(5000)}[Only link](https://news.test/only)`, "https://news.test/").get("https://news.test/only")).toBe("Only link");
});
