/**
 * @module interact/driver
 * A prompt carried out in an interactive session's page: the model is shown the page (interact/page-state.ts) and
 * picks one step at a time (click, type, press, scroll, wait, done) until it answers or the step limit or the time
 * runs out. The steps are crawlbox's own browser actions on the page; the model never runs code. Navigation the
 * page makes (a clicked link) goes through the egress gate like every page of the browser.
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { interactMessages } from "../llm/task-prompts.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { describeState, listedElement, readPageState } from "./page-state.ts";
import { isPageTooLarge, sizeChecked } from "./page-size.ts";

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
  /** Whether its time ran out (or its client left). */
  killed: boolean;
  /**
   * Whether a step or a read was still running on the page when the time ran out; the session then asks the page
   * (interact/page-abandon.ts) and leaves it set only when the page did not answer and the session was dropped.
   */
  stuck: boolean;
}

/** Lets the page settle after a step (a prompt's, or a shell command's): its network quiet for a moment, or a short wait at most. */
export async function settle(page: Page): Promise<void> {
  await page.waitForNetworkIdle({ idleTime: 250, timeout: 2_500 }).catch(() => undefined);
}

/** A step the model asked for that cannot be done; its message is crawlbox's own, never the page's. */
class StepError extends Error {}

/** Carries out one step; returns its log line. Throws {@link StepError} for a step that cannot be done. */
async function perform(page: Page, session: CDPSession, step: Step): Promise<string> {
  const target = async () => {
    if (step.element === undefined || !Number.isInteger(step.element)) throw new StepError(`${step.action} needs an element number`);
    const el = await listedElement(page, session, step.element);
    if (!el) throw new StepError(`there is no element ${step.element} on the page now`);
    return el;
  };
  switch (step.action) {
    case "click":
      await (await target()).click();
      await settle(page);
      return `clicked element ${step.element}`;
    case "type":
      await (await target()).type(step.text ?? "");
      return `typed ${JSON.stringify((step.text ?? "").slice(0, 100))} into element ${step.element}`;
    case "press": {
      const key = step.key ?? "";
      if (!KEYS.has(key)) throw new StepError(`that key is not one of ${[...KEYS].join(", ")}`);
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

/**
 * {@link perform} held to the page limit (interact/page-size.ts): a step that leads to a main document past it (a
 * link clicked) has its load stopped and fails, told to the model in crawlbox's words (not the page's URL).
 */
async function performSized(page: Page, session: CDPSession, step: Step): Promise<string> {
  try {
    return await sizeChecked(page, () => perform(page, session, step));
  } catch (err) {
    if (isPageTooLarge(err)) throw new StepError("the page it led to is larger than this server's page size limit, and its loading was stopped");
    throw err;
  }
}

/**
 * Carries out `prompt` on `page` (read through `session`, see page-state.ts); `call()` gives each model call its
 * limits. When `signal` aborts, the prompt ends with what it did (`killed`); a page read or step still running then
 * marks it `stuck` (for the session to check the page). Throws the model's typed errors, and whatever else fails under it (the browser gone).
 */
export async function runPrompt(llm: LlmClient, page: Page, session: CDPSession, prompt: string, call: () => LlmCall, signal: AbortSignal): Promise<PromptOutcome> {
  const log: string[] = [];
  const spent = { tokens: 0 };
  let inPage = false;
  try {
    for (let i = 0; i < MAX_STEPS; i++) {
      if (signal.aborted) return { log, exhausted: false, killed: true, stuck: false };
      inPage = true;
      const state = await raceAbort(readPageState(session), signal);
      inPage = false;
      const step = (await llm.structured(interactMessages(prompt, describeState(state), log.map((l, n) => `${n + 1}. ${l}`).join("\n")), STEP_SCHEMA, call(), spent)) as Step;
      if (step.action === "done") {
        log.push("done");
        return { answer: (step.answer ?? "").trim(), log, exhausted: false, killed: false, stuck: false };
      }
      try {
        inPage = true;
        log.push(await raceAbort(performSized(page, session, step), signal));
        inPage = false;
      } catch (err) {
        if (signal.aborted) throw err;
        inPage = false;
        // The model learns what went wrong at its next step, in crawlbox's words: a page's own error text (which it
        // controls) never reaches the prompt outside the delimited block.
        log.push(err instanceof StepError ? `${step.action} failed: ${err.message}` : `${step.action} failed: the page did not allow it`);
      }
    }
    return { log, exhausted: true, killed: false, stuck: false };
  } catch (err) {
    if (!signal.aborted) throw err;
    return { log, exhausted: false, killed: true, stuck: inPage };
  }
}
