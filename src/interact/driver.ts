/**
 * @module interact/driver
 * A prompt carried out in an interactive session's page: the model is shown the page (interact/page-state.ts) and
 * picks one step at a time (click, type, press, scroll, wait, done) until it answers or the step limit or the time
 * runs out. The steps are crawlbox's own browser actions on the page; the model never runs code. Navigation the
 * page makes (a clicked link) goes through the egress gate like every page of the browser.
 */
import type { Page } from "puppeteer-core";
import type { LlmCall, LlmClient } from "../llm/client.ts";
import { interactMessages } from "../llm/task-prompts.ts";
import { describeState, readPageState } from "./page-state.ts";

/** Steps one prompt may take. */
export const MAX_STEPS = 10;
/** Keys the model may press. */
const KEYS = new Set(["Enter", "Tab", "Escape", "ArrowDown", "ArrowUp", "PageDown", "PageUp"]);

const STEP_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    action: { type: "string", enum: ["click", "type", "press", "scroll", "wait", "done"] },
    element: { type: "integer" },
    text: { type: "string" },
    key: { type: "string" },
    answer: { type: "string" },
  },
  required: ["action"],
};

interface Step {
  action: "click" | "type" | "press" | "scroll" | "wait" | "done";
  element?: number;
  text?: string;
  key?: string;
  answer?: string;
}

/** What a prompt did. */
export interface PromptOutcome {
  /** The model's answer; undefined when it gave none within the steps. */
  answer?: string;
  /** One line per step taken. */
  log: string[];
  /** Whether the step limit ended it before an answer. */
  exhausted: boolean;
  /** Whether its time ran out (or its client left) between steps. */
  killed: boolean;
}

/** Lets the page settle after a step: its network quiet for a moment, or a short wait at most. */
async function settle(page: Page): Promise<void> {
  await page.waitForNetworkIdle({ idleTime: 250, timeout: 2_500 }).catch(() => undefined);
}

/** Carries out one step; returns its log line. Throws for a step that cannot be done (reported to the model). */
async function perform(page: Page, step: Step): Promise<string> {
  const target = () => {
    if (step.element === undefined || !Number.isInteger(step.element)) throw new Error(`${step.action} needs an element number`);
    return `[data-crawlbox-ix="${step.element}"]`;
  };
  switch (step.action) {
    case "click":
      await page.click(target());
      await settle(page);
      return `clicked element ${step.element}`;
    case "type":
      await page.type(target(), step.text ?? "");
      return `typed ${JSON.stringify((step.text ?? "").slice(0, 100))} into element ${step.element}`;
    case "press": {
      const key = step.key ?? "";
      if (!KEYS.has(key)) throw new Error(`the key ${JSON.stringify(key)} is not one of ${[...KEYS].join(", ")}`);
      await page.keyboard.press(key as "Enter");
      await settle(page);
      return `pressed ${key}`;
    }
    case "scroll": {
      const up = (step.text ?? "").toLowerCase() === "up";
      await page.evaluate((dy: number) => window.scrollBy(0, dy), up ? -800 : 800);
      await settle(page);
      return `scrolled ${up ? "up" : "down"}`;
    }
    case "wait":
      await settle(page);
      return "waited";
    default:
      return "done";
  }
}

/** Carries out `prompt` on `page`; `call()` gives each model call its limits. */
export async function runPrompt(llm: LlmClient, page: Page, prompt: string, call: () => LlmCall, signal: AbortSignal): Promise<PromptOutcome> {
  const log: string[] = [];
  const spent = { tokens: 0 };
  for (let i = 0; i < MAX_STEPS; i++) {
    if (signal.aborted) return { log, exhausted: false, killed: true };
    const state = await readPageState(page);
    const step = (await llm.structured(interactMessages(prompt, describeState(state), log.map((l, n) => `${n + 1}. ${l}`).join("\n")), STEP_SCHEMA, call(), spent)) as Step;
    if (step.action === "done") {
      log.push("done");
      return { answer: (step.answer ?? "").trim(), log, exhausted: false, killed: false };
    }
    try {
      log.push(await perform(page, step));
    } catch (err) {
      // The model learns what went wrong at its next step, as a person would.
      log.push(`${step.action} failed: ${(err as Error).message.slice(0, 200)}`);
    }
  }
  return { log, exhausted: true, killed: false };
}
