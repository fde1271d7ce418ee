/**
 * @module interact/page-ops
 * Page operations both kinds of browser code use (bash's agent-browser commands, interact/shell; JavaScript's
 * Playwright-style `page`, interact/sandbox): what URL may be opened, keys and combinations, the errors that mean
 * the browser is gone, and the failure a caller is told about in crawlbox's words.
 */
import type { KeyInput, Page } from "puppeteer-core";

/** Errors that mean the page or browser is gone, not that an operation failed: they end the session. */
export const BROWSER_GONE = /Target closed|Session closed|Connection closed|detached Frame|Protocol error.*(?:closed|not found)/i;

/** An operation could not be done; its message is meant for the caller (stderr, or the error their code catches). */
export class PageOpError extends Error {}

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
