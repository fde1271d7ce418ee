/**
 * The LLM formats' units: `chunkText` keeps paragraphs within a size, `mergeAnswers` joins the answers of a long
 * page's chunks, and the pinned fetch (the only egress exemption, for the configured LLM endpoint) reaches that base
 * URL only and never follows redirects.
 */
import { describe, expect, test } from "bun:test";
import { chunkText, mergeAnswers } from "../../src/llm/chunk.ts";
import { createPinnedFetch, PinnedFetchRefusedError } from "../../src/llm/pinned-fetch.ts";

describe("units", () => {
  test("chunkText keeps paragraphs and respects the size", () => {
    const text = ["a".repeat(50), "b".repeat(50), "c".repeat(120)].join("\n\n");
    const chunks = chunkText(text, 60);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(60);
    expect(chunks.join("").replace(/\n/g, "")).toBe(text.replace(/\n/g, ""));
  });

  test("mergeAnswers: arrays concatenated and deduplicated, each scalar from the chunk that gives most of its object", () => {
    const merged = mergeAnswers([
      { items: ["a", "b"], title: null, meta: { author: "x" } },
      { items: ["b", "c"], title: "Real title", meta: { author: "y", year: 2020 }, extra: [1] },
    ]);
    expect(merged).toEqual({ items: ["a", "b", "c"], title: "Real title", meta: { author: "y", year: 2020 }, extra: [1] });
  });

  test("the pinned fetch reaches only the configured base URL and never follows redirects", async () => {
    const seen: { url: string; redirect?: RequestRedirect }[] = [];
    const inner = (async (url: string, init?: RequestInit) => {
      seen.push({ url, redirect: init?.redirect });
      return new Response("{}");
    }) as unknown as typeof fetch;
    const f = createPinnedFetch("http://10.0.0.5:11434/v1", inner);
    await f("http://10.0.0.5:11434/v1/chat/completions");
    expect(seen).toEqual([{ url: "http://10.0.0.5:11434/v1/chat/completions", redirect: "error" }]);
    for (const bad of ["http://10.0.0.6:11434/v1/x", "http://10.0.0.5:11435/v1/x", "https://10.0.0.5:11434/v1/x", "http://10.0.0.5:11434/admin", "http://10.0.0.5:11434/v10/x"]) {
      await expect(f(bad)).rejects.toBeInstanceOf(PinnedFetchRefusedError);
    }
    expect(seen).toHaveLength(1);
  });
});
