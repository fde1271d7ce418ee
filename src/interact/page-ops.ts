/**
 * @module interact/page-ops
 * Page operations both kinds of browser code use (bash's agent-browser commands, interact/shell; JavaScript's
 * Playwright-style `page`, interact/sandbox): what URL may be opened, keys and combinations, the errors that mean
 * the browser is gone, screenshots within a script's budget, and the failure a caller is told about in crawlbox's
 * words.
 */
import type { KeyInput, Page } from "puppeteer-core";
import { takeScreenshot } from "../engines/browser/actions.ts";
import { evaluateScript, OversizedResult, type ScriptResult } from "../engines/browser/script.ts";
import { canCapture, RENDER_PROBE_MS } from "../engines/browser/render-probe.ts";
import type { FileSink } from "../scrape/render-context.ts";
import { sleep } from "../scheduler/abortable.ts";
import type { WorldElement } from "./isolated-world.ts";

/** Errors that mean the page or browser is gone, not that an operation failed: they end the session. */
export const BROWSER_GONE = /Target closed|Session closed|Connection closed|detached Frame|Protocol error.*(?:closed|not found)/i;

/** An operation could not be done; its message is meant for the caller (stderr, or the error their code catches). */
export class PageOpError extends Error {}

/**
 * A failure read from the page (an element's check in the isolated world) keeps the first line of what was thrown
 * there, `Error: the element is not a <select>`: its plain `Error: ` says nothing after bash's `✗` or in the message of
 * the Error JavaScript's code catches (`Error: Error: …`), so it goes; another kind (`TypeError: …`) stays.
 */
export function withoutErrorPrefix(err: unknown): unknown {
  if (err instanceof PageOpError && err.message.startsWith("Error: ")) err.message = err.message.slice("Error: ".length);
  return err;
}

/**
 * Refuses, in crawlbox's words, to fill or clear an element that is not a text field (a button, a checkbox, a
 * `<div>` that is not editable), or one that is disabled or read-only: typing into it would do nothing, or something
 * else, and report nothing. As Playwright's `fill`: an `<input>` of a type text is typed into (or a value set on: a
 * date, a colour), a `<textarea>`, or an editable element.
 */
export async function checkFillable(el: WorldElement): Promise<void> {
  const why = await el.call(`function () {
    const typed = ["", "text", "email", "number", "password", "search", "tel", "url", "color", "date", "time", "datetime-local", "month", "range", "week"];
    if (this.tagName === "INPUT") {
      const type = String(this.type || "").toLowerCase();
      if (!typed.includes(type)) return "an <input type=" + JSON.stringify(type) + "> cannot be filled (check, uncheck or click it)";
    } else if (this.tagName !== "TEXTAREA" && !this.isContentEditable) {
      return "the element is not a text field (an <input>, a <textarea> or an editable element): a <" + this.tagName.toLowerCase() + "> cannot be filled";
    }
    if (this.disabled) return "the field is disabled";
    if (this.readOnly) return "the field is read-only";
    return "";
  }`);
  if (why) throw new PageOpError(String(why));
}

/**
 * Runs `script` in the page as the `executeJavascript` action does (engines/browser/script.ts), its value refused in
 * the page past `maxChars` characters of JSON (written no further than that), in words that name the bound.
 */
export async function evaluateBounded(page: Page, script: string, maxChars: number): Promise<ScriptResult> {
  try {
    return await evaluateScript(page, script, maxChars);
  } catch (err) {
    // "a result of N characters" (a string), or "of more than N" when the rest of its JSON was never written.
    if (err instanceof OversizedResult) throw new PageOpError(`${err.message}, over the ${maxChars} that are read`);
    throw err;
  }
}

/** The URL to open: a bare host gets `https://`, as agent-browser does; only http(s) and about:blank are opened. */
export function navigableUrl(raw: string): string {
  if (raw === "about:blank") return raw;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw}`;
  if (!URL.canParse(withScheme) || !/^https?:$/.test(new URL(withScheme).protocol)) throw new PageOpError(`${raw} is not an http(s) URL`);
  return withScheme;
}

/** Presses a key or a combination (`Control+a`: modifiers held, the last key pressed), or holds or lets go of one. */
export async function pressCombo(page: Page, combo: string, how: "press" | "down" | "up" = "press"): Promise<void> {
  const keys = combo.split("+").filter(Boolean) as KeyInput[];
  if (keys.length === 0) throw new PageOpError("no key given");
  try {
    if (how === "down") return void (await page.keyboard.down(keys[0]!));
    if (how === "up") return void (await page.keyboard.up(keys[0]!));
    for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
    await page.keyboard.press(keys[keys.length - 1]!);
    for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
  } catch (err) {
    if (/Unknown key/.test((err as Error).message)) throw new PageOpError(`unknown key in ${combo} (key names are as in the browser: Enter, Tab, Escape, ArrowDown, Control, a, …)`);
    throw err;
  }
}

/** How often a wait looks at the page again. */
const POLL_MS = 100;

/**
 * Calls `attempt` until it gives a value, every {@link POLL_MS}, for `timeoutMs` at most (a last attempt at the
 * limit) or until `signal` aborts (rejecting with its reason); the value, or undefined when the time ran out.
 */
export async function poll<T>(attempt: () => Promise<T | undefined>, timeoutMs: number, signal: AbortSignal): Promise<T | undefined> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await attempt();
    if (v !== undefined) return v;
    if (performance.now() >= end) return undefined;
    await sleep(POLL_MS, signal);
  }
}

/** Screenshots one script may store, and their bytes in all (they are kept 24 h, like a scrape's). */
export const MAX_SCRIPT_SCREENSHOTS = 20;
export const MAX_SCRIPT_SCREENSHOT_BYTES = 50 * 1024 * 1024;

/** What a script's screenshots have used so far. */
export interface ShotBudget {
  count: number;
  bytes: number;
}

/** Time within which a screenshot's render check answers (the probe's own time, and a margin). */
const RENDER_CHECK_MS = RENDER_PROBE_MS + 500;

/**
 * Takes a PNG of the page (a full page cut at the scrapes' height limit) and stores it within the script's budget;
 * its URL. Past the budget, a {@link PageOpError}; so, within about a second, for a page Chromium does not render (its
 * `<head>` waits for a script or stylesheet that never arrives), whose capture would wait for a frame until the
 * script's time ran out (engines/browser/render-probe.ts `canCapture`).
 */
export async function screenshotToFile(page: Page, fullPage: boolean, saveFile: FileSink, budget: ShotBudget): Promise<string> {
  if (budget.count >= MAX_SCRIPT_SCREENSHOTS) throw new PageOpError(`at most ${MAX_SCRIPT_SCREENSHOTS} screenshots per script`);
  if (!(await canCapture(page, performance.now() + RENDER_CHECK_MS))) {
    throw new PageOpError(
      `no screenshot was taken: the browser has not rendered the page within ${RENDER_PROBE_MS / 1000} s (it still waits for a script or stylesheet that never arrived, or its script keeps the browser busy)`,
    );
  }
  const shot = await takeScreenshot(page, { fullPage });
  if (budget.bytes + shot.bytes.byteLength > MAX_SCRIPT_SCREENSHOT_BYTES) throw new PageOpError(`the script's screenshots would pass ${MAX_SCRIPT_SCREENSHOT_BYTES / 1024 / 1024} MB`);
  budget.count++;
  budget.bytes += shot.bytes.byteLength;
  return saveFile(Buffer.from(shot.bytes), shot.contentType, "png");
}
