/**
 * @module interact/shell/agent-browser
 * The `agent-browser` command of browser `code` in `language: "bash"` (docs/interact.md): the subcommands of the
 * agent-browser CLI that upstream's sandboxes run (open, snapshot with refs, click, fill, press, get, wait, eval,
 * screenshot, …), carried out by crawlbox on the session's page with puppeteer. The page is the session's: every
 * request it makes goes through the egress gate like any browser page, and `open` checks its URL first. Targets are
 * a snapshot's refs (`@e3`) or CSS selectors; where several elements match, the first is used.
 */
import type { CDPSession, KeyInput, Page } from "puppeteer-core";
import { evaluateScript, SELECTOR_WAIT_CAP_MS } from "../../engines/browser/actions.ts";
import type { FileSink } from "../../scrape/render-context.ts";
import { settle } from "../driver.ts";
import { takeSnapshot, targetSelector } from "./snapshot.ts";

/** Longest `open`, `back`, `forward` or `reload` may wait for the page to load. */
export const NAVIGATION_TIMEOUT_MS = 30_000;
/** Pixels `scroll` moves when it is not told. */
const DEFAULT_SCROLL_PX = 500;

/** What a command works on. */
export interface ShellContext {
  page: Page;
  /** A CDP session of the page (the snapshot reads the page in an isolated world through it). */
  session: CDPSession;
  /** The egress gate's check of a URL `open` is about to load. */
  check: (url: string) => Promise<void>;
  /** Stores a screenshot and returns its URL. */
  saveFile: FileSink;
  /** Set by `close`: the session ends once the script has run. */
  closeRequested?: boolean;
}

/** A command failed; `message` is printed on stderr as `✗ message`, in crawlbox's words. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** What a command printed: `text` on stdout (plain), `data` under `--json`. */
interface Printed {
  text?: string;
  data?: unknown;
}

const usage = (what: string): never => {
  throw new CommandError(`usage: agent-browser ${what}`, 2);
};

/** The element `target` names, or a clear error. */
async function element(page: Page, target: string | undefined, what: string) {
  if (!target) usage(`${what} <@ref|selector>`);
  const handle = await page.$(targetSelector(target!)).catch((err: Error) => {
    throw new CommandError(`${target} is not a valid selector (${err.message.split("\n")[0]!.slice(0, 120)})`);
  });
  if (!handle) throw new CommandError(`no element matches ${target}${target!.startsWith("@") ? " (refs change with every snapshot: take a new one)" : ""}`);
  return handle;
}

/** `open`'s URL: a bare host gets `https://`, as agent-browser does; only http(s) and about:blank are opened. */
function navigableUrl(raw: string | undefined): string {
  if (!raw) usage("open <url>");
  if (raw === "about:blank") return raw;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(raw!) ? raw! : `https://${raw}`;
  if (!URL.canParse(withScheme) || !/^https?:$/.test(new URL(withScheme).protocol)) throw new CommandError(`${raw} is not an http(s) URL`);
  return withScheme;
}

/** Presses a key or a combination (`Control+a`): modifiers held, the last key pressed. */
async function pressKeys(page: Page, combo: string | undefined, how: "press" | "down" | "up"): Promise<void> {
  if (!combo) usage(`${how === "press" ? "press" : `key${how}`} <key>`);
  const keys = combo!.split("+").filter(Boolean) as KeyInput[];
  try {
    if (how === "down") return void (await page.keyboard.down(keys[0]!));
    if (how === "up") return void (await page.keyboard.up(keys[0]!));
    for (const k of keys.slice(0, -1)) await page.keyboard.down(k);
    await page.keyboard.press(keys[keys.length - 1]!);
    for (const k of keys.slice(0, -1).reverse()) await page.keyboard.up(k);
  } catch (err) {
    if (/Unknown key/.test((err as Error).message)) throw new CommandError(`unknown key in ${combo} (key names are as in the browser: Enter, Tab, Escape, ArrowDown, Control, a, …)`);
    throw err;
  }
}

/** Reads `flag` (and its value) out of `args`, which keeps the rest. */
function takeFlag(args: string[], names: string[], withValue: boolean): string | true | undefined {
  const i = args.findIndex((a) => names.includes(a));
  if (i < 0) return undefined;
  const value = withValue ? args[i + 1] : undefined;
  if (withValue && value === undefined) throw new CommandError(`${args[i]} needs a value`, 2);
  args.splice(i, withValue ? 2 : 1);
  return value ?? true;
}

async function navigate(ctx: ShellContext, go: () => Promise<unknown>): Promise<Printed> {
  await go();
  const title = await ctx.page.title().catch(() => "");
  return { text: `✓ ${title}\n  ${ctx.page.url()}`, data: { title, url: ctx.page.url() } };
}

/** `get <what> [target] [name]`. */
async function get(page: Page, args: string[]): Promise<Printed> {
  const [what, target, name] = args;
  const value = async (fn: (el: Element, name?: string) => unknown) => (await element(page, target, `get ${what}`)).evaluate(fn, name);
  let v: unknown;
  switch (what) {
    case "title": v = await page.title(); break;
    case "url": v = page.url(); break;
    case "text": v = await value((el) => (el as HTMLElement).innerText); break;
    case "html": v = await value((el) => el.innerHTML); break;
    case "value": v = await value((el) => (el as HTMLInputElement).value ?? ""); break;
    case "attr":
      if (!name) usage("get attr <@ref|selector> <name>");
      v = await value((el, n) => el.getAttribute(n!));
      break;
    case "count":
      if (!target) usage("get count <selector>");
      v = (await page.$$(targetSelector(target!))).length;
      break;
    case "box": v = await (await element(page, target, "get box")).boundingBox(); break;
    default: usage("get title|url|text|html|value|attr|count|box [@ref|selector] [name]");
  }
  return { text: typeof v === "string" ? v : JSON.stringify(v), data: v };
}

/** `is visible|enabled|checked <target>`. */
async function is(page: Page, [what, target]: string[]): Promise<Printed> {
  const el = await element(page, target, `is ${what ?? "visible"}`);
  let v: boolean;
  if (what === "visible") v = await el.isVisible();
  else if (what === "enabled") v = await el.evaluate((e) => !(e as HTMLButtonElement).disabled);
  else if (what === "checked") v = await el.evaluate((e) => !!(e as HTMLInputElement).checked);
  else return usage("is visible|enabled|checked <@ref|selector>");
  return { text: String(v), data: v };
}

/** `wait <ms>`, `wait <target>`, `wait --text <text>`, `wait --url <part>`, `wait --load <state>`. */
async function wait(page: Page, args: string[]): Promise<Printed> {
  const timeout = SELECTOR_WAIT_CAP_MS;
  const text = takeFlag(args, ["--text"], true);
  const url = takeFlag(args, ["--url"], true);
  const load = takeFlag(args, ["--load"], true);
  if (typeof text === "string") await page.waitForFunction((t: string) => document.body?.innerText.includes(t), { timeout }, text);
  else if (typeof url === "string") await page.waitForFunction((u: string) => location.href.includes(u), { timeout }, url);
  else if (load === "networkidle") await page.waitForNetworkIdle({ idleTime: 500, timeout });
  else if (typeof load === "string") await page.waitForFunction((s: string) => s === "domcontentloaded" ? document.readyState !== "loading" : document.readyState === "complete", { timeout }, load);
  else if (/^\d+$/.test(args[0] ?? "")) await new Promise((r) => setTimeout(r, Math.min(Number(args[0]), timeout)));
  else if (args[0]) await page.waitForSelector(targetSelector(args[0]), { timeout });
  else usage("wait <ms|@ref|selector> | --text <text> | --url <part> | --load <load|domcontentloaded|networkidle>");
  return {};
}

/** Carries out one `agent-browser` subcommand (`args` without the command name); see the module comment. */
export async function agentBrowser(ctx: ShellContext, args: string[]): Promise<Printed> {
  const { page } = ctx;
  const [sub, ...rest] = args;
  const t = rest[0];
  const nav = { waitUntil: "load" as const, timeout: NAVIGATION_TIMEOUT_MS };
  const act = async (fn: () => Promise<unknown>): Promise<Printed> => {
    await fn();
    await settle(page);
    return {};
  };
  switch (sub) {
    case "open": case "goto": case "navigate": {
      const url = navigableUrl(t);
      if (url !== "about:blank") await ctx.check(url);
      return navigate(ctx, () => page.goto(url, nav));
    }
    case "back": return navigate(ctx, () => page.goBack(nav));
    case "forward": return navigate(ctx, () => page.goForward(nav));
    case "reload": return navigate(ctx, () => page.reload(nav));
    case "close": ctx.closeRequested = true; return { text: "✓ Browser closed" };
    case "snapshot": {
      const interactive = takeFlag(rest, ["-i", "--interactive"], false) === true;
      takeFlag(rest, ["-c", "--compact"], false); // the outline is always compact
      const depth = takeFlag(rest, ["-d", "--depth"], true);
      const scope = takeFlag(rest, ["-s", "--selector"], true);
      if (rest.length) throw new CommandError(`snapshot does not take ${rest[0]}`, 2);
      if (depth !== undefined && !/^\d+$/.test(String(depth))) throw new CommandError("-d needs a whole number", 2);
      const snap = await takeSnapshot(ctx.session, { interactive, ...(depth ? { maxDepth: Number(depth) } : {}), ...(typeof scope === "string" ? { scope } : {}) });
      if (snap.scopeMissing) throw new CommandError(`no element matches ${scope}`);
      const text = snap.lines.join("\n") + (snap.truncated ? `\n(cut at ${snap.lines.length} lines)` : "");
      return { text: text || "(empty page)", data: { snapshot: text, refs: snap.refs } };
    }
    case "click": return act(async () => (await element(page, t, "click")).click());
    case "dblclick": return act(async () => (await element(page, t, "dblclick")).click({ count: 2 }));
    case "hover": return act(async () => (await element(page, t, "hover")).hover());
    case "focus": return act(async () => (await element(page, t, "focus")).focus());
    case "type": case "fill": case "clear": {
      const el = await element(page, t, sub === "clear" ? "clear" : `${sub} <@ref|selector> <text>`);
      if (sub !== "type") await el.evaluate((e) => {
        if ("value" in e) (e as HTMLInputElement).value = "";
        else (e as HTMLElement).textContent = "";
        e.dispatchEvent(new Event("input", { bubbles: true }));
      });
      if (sub !== "clear") await el.type(rest.slice(1).join(" "));
      return {};
    }
    case "press": case "key": return act(() => pressKeys(page, t, "press"));
    case "keydown": return act(() => pressKeys(page, t, "down"));
    case "keyup": return act(() => pressKeys(page, t, "up"));
    case "check": case "uncheck": {
      const el = await element(page, t, sub);
      if ((await el.evaluate((e) => !!(e as HTMLInputElement).checked)) !== (sub === "check")) await el.click();
      return {};
    }
    case "select": {
      if (rest.length < 2) usage("select <@ref|selector> <value...>");
      const chosen = await page.select(targetSelector(t!), ...rest.slice(1));
      return { text: chosen.join("\n"), data: chosen };
    }
    case "scroll": {
      const dir = /^(up|down|left|right)$/.test(t ?? "") ? t! : "down";
      const px = Number(rest[dir === t ? 1 : 0] ?? DEFAULT_SCROLL_PX);
      if (!Number.isFinite(px)) usage("scroll [up|down|left|right] [pixels]");
      const sign = dir === "up" || dir === "left" ? -1 : 1;
      return act(() => page.evaluate((x: number, y: number) => window.scrollBy(x, y), dir === "left" || dir === "right" ? sign * px : 0, dir === "up" || dir === "down" ? sign * px : 0));
    }
    case "scrollintoview": case "scrollinto": return act(async () => (await element(page, t, "scrollintoview")).scrollIntoView());
    case "wait": return wait(page, rest);
    case "get": return get(page, rest);
    case "is": return is(page, rest);
    case "eval": {
      if (!rest.length) usage("eval <javascript>");
      const r = await evaluateScript(page, rest.join(" "));
      return { text: typeof r.value === "string" ? r.value : JSON.stringify(r.value), data: r.value };
    }
    case "screenshot": {
      const full = takeFlag(rest, ["--full", "-f"], false) === true;
      const bytes = await page.screenshot({ type: "png", fullPage: full });
      const url = await ctx.saveFile(Buffer.from(bytes), "image/png", "png");
      return { text: url, data: { url } };
    }
    default:
      throw new CommandError(sub ? `unknown command: ${sub} (crawlbox's agent-browser: docs/interact.md lists the commands)` : "usage: agent-browser <command> [args]", 2);
  }
}
