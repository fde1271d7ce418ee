/**
 * @module interact/shell/agent-browser
 * The `agent-browser` command of browser `code` in `language: "bash"` (docs/interact.md): the subcommands of the
 * agent-browser CLI that upstream's sandboxes run (open, snapshot with refs, click, fill, press, get, wait, eval,
 * screenshot, …), carried out by crawlbox on the session's page. The page is the session's: every request it makes
 * goes through the egress gate like any browser page, and `open` checks its URL first. Targets are a snapshot's refs
 * (`@e3`) or CSS selectors (the first match), found and acted on from the page's isolated world
 * (interact/isolated-world.ts); what is read from the page is bounded before it crosses.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { evaluateScript, SELECTOR_WAIT_CAP_MS } from "../../engines/browser/actions.ts";
import type { FileSink } from "../../scrape/render-context.ts";
import { settle } from "../driver.ts";
import { MAX_READ_CHARS, pageTitle, type WorldElement } from "../isolated-world.ts";
import { navigableUrl, PageOpError, poll, pressCombo, screenshotToFile, type ShotBudget } from "../page-ops.ts";
import { sizeCheckedOp } from "../page-size.ts";
import { find } from "./find.ts";
import { countMatches, findTarget, takeSnapshot } from "./snapshot.ts";

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
  /** The script's screenshots so far. */
  shots: ShotBudget;
  /** The script's time (and its client): waits inside a command end with it. */
  signal?: AbortSignal;
}

/** A command failed; `message` is printed on stderr as `✗ message`, in crawlbox's words. */
export class CommandError extends PageOpError {
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
async function element(ctx: ShellContext, target: string | undefined, what: string): Promise<WorldElement> {
  if (!target) usage(`${what} <@ref|selector>`);
  const el = await findTarget(ctx.page, ctx.session, target!);
  if (!el) throw new CommandError(`no element matches ${target}${/^(@|ref=)/.test(target!) ? " (refs change with every snapshot and page: take a new one)" : ""}`);
  return el;
}

/** Presses a key or a combination (`Control+a`), or holds or lets go of one. */
async function pressKeys(page: Page, combo: string | undefined, how: "press" | "down" | "up"): Promise<void> {
  if (!combo) usage(`${how === "press" ? "press" : `key${how}`} <key>`);
  await pressCombo(page, combo!, how);
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
  const title = await pageTitle(ctx.session).catch(() => "");
  return { text: `✓ ${title}\n  ${ctx.page.url()}`, data: { title, url: ctx.page.url() } };
}

/** `get <what> [target] [name]`. */
async function get(ctx: ShellContext, args: string[]): Promise<Printed> {
  const [what, target, name] = args;
  const read = async (fn: string) => (await element(ctx, target, `get ${what}`)).call(fn, name ?? null);
  let v: unknown;
  switch (what) {
    case "title": v = await pageTitle(ctx.session); break;
    case "url": v = ctx.page.url(); break;
    case "text": v = await read("function () { return this.innerText; }"); break;
    case "html": v = await read("function () { return this.innerHTML; }"); break;
    case "value": v = await read('function () { return this.value == null ? "" : this.value; }'); break;
    case "attr":
      if (!name) usage("get attr <@ref|selector> <name>");
      v = await read("function (n) { return this.getAttribute(n); }");
      break;
    case "count":
      if (!target) usage("get count <selector>");
      v = await countMatches(ctx.session, target!);
      break;
    case "box": v = await (await element(ctx, target, "get box")).box(); break;
    default: usage("get title|url|text|html|value|attr|count|box [@ref|selector] [name]");
  }
  return { text: typeof v === "string" ? v : JSON.stringify(v), data: v };
}

/** `is visible|enabled|checked <target>`. */
async function is(ctx: ShellContext, [what, target]: string[]): Promise<Printed> {
  const el = await element(ctx, target, `is ${what ?? "visible"}`);
  let v: boolean;
  if (what === "visible") v = await el.visible();
  else if (what === "enabled") v = (await el.call("function () { return !this.disabled; }")) as boolean;
  else if (what === "checked") v = (await el.call("function () { return !!this.checked; }")) as boolean;
  else return usage("is visible|enabled|checked <@ref|selector>");
  return { text: String(v), data: v };
}

/** Waits until `found()` says yes, polling, {@link SELECTOR_WAIT_CAP_MS} at most (and no longer than the script). */
async function until(found: () => Promise<boolean>, what: string, signal: AbortSignal = new AbortController().signal): Promise<void> {
  if (!(await poll(async () => (await found()) || undefined, SELECTOR_WAIT_CAP_MS, signal))) throw new CommandError(`${what} did not appear within ${SELECTOR_WAIT_CAP_MS / 1000} s`);
}

/** `wait <target>`, `wait --text <text>`, `wait --url <part>`, `wait --load <state>` (`wait <ms>` is run.ts's: no page in it). */
async function wait(ctx: ShellContext, args: string[]): Promise<Printed> {
  const { page } = ctx;
  const timeout = SELECTOR_WAIT_CAP_MS;
  const text = takeFlag(args, ["--text"], true);
  const url = takeFlag(args, ["--url"], true);
  const load = takeFlag(args, ["--load"], true);
  if (typeof text === "string") await page.waitForFunction((t: string) => document.body?.innerText.includes(t), { timeout }, text);
  else if (typeof url === "string") await page.waitForFunction((u: string) => location.href.includes(u), { timeout }, url);
  else if (load === "networkidle") await page.waitForNetworkIdle({ idleTime: 500, timeout });
  else if (typeof load === "string") await page.waitForFunction((s: string) => s === "domcontentloaded" ? document.readyState !== "loading" : document.readyState === "complete", { timeout }, load);
  else if (args[0]) await until(async () => (await findTarget(page, ctx.session, args[0]!)) !== undefined, args[0], ctx.signal);
  else usage("wait <ms|@ref|selector> | --text <text> | --url <part> | --load <load|domcontentloaded|networkidle>");
  return {};
}

/** `cookies` (the page's, as JSON), `cookies set NAME VALUE`, `cookies clear` (the page's URL's cookies). */
async function cookies(ctx: ShellContext, args: string[]): Promise<Printed> {
  const url = ctx.page.url();
  if (!/^https?:/.test(url)) throw new CommandError("open a page first: cookies belong to its URL");
  const { cookies: list } = await ctx.session.send("Network.getCookies", { urls: [url] });
  if (args.length === 0) {
    const shown = list.map((c) => ({ name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite }));
    return { text: JSON.stringify(shown), data: shown };
  }
  if (args[0] === "set" && args[1] && args[2] !== undefined) {
    const { success } = await ctx.session.send("Network.setCookie", { name: args[1], value: args.slice(2).join(" "), url });
    if (!success) throw new CommandError(`the browser refused the cookie ${args[1]}`);
    return {};
  }
  if (args[0] === "clear" && args.length === 1) {
    for (const c of list) await ctx.session.send("Network.deleteCookies", { name: c.name, domain: c.domain, path: c.path });
    return {};
  }
  return usage("cookies [set <name> <value> | clear]");
}

/**
 * Carries out one `agent-browser` subcommand (`args` without the command name); see the module comment. A main
 * document past the page limit while it runs (`open`, a click that navigates, …) fails it (interact/page-size.ts).
 */
export function agentBrowser(ctx: ShellContext, args: string[]): Promise<Printed> {
  return sizeCheckedOp(ctx.page, () => command(ctx, args));
}

async function command(ctx: ShellContext, args: string[]): Promise<Printed> {
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
      if (!t) usage("open <url>");
      const url = navigableUrl(t!);
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
    case "click": return act(async () => (await element(ctx, t, "click")).click());
    case "dblclick": return act(async () => (await element(ctx, t, "dblclick")).click(2));
    case "hover": return act(async () => (await element(ctx, t, "hover")).hover());
    case "focus": return act(async () => (await element(ctx, t, "focus")).focus());
    case "type": case "fill": case "clear": {
      const el = await element(ctx, t, sub === "clear" ? "clear" : `${sub} <@ref|selector> <text>`);
      if (sub !== "type") await el.clear();
      if (sub !== "clear") await el.type(rest.slice(1).join(" "));
      return {};
    }
    case "press": case "key": return act(() => pressKeys(page, t, "press"));
    case "keydown": return act(() => pressKeys(page, t, "down"));
    case "keyup": return act(() => pressKeys(page, t, "up"));
    case "check": case "uncheck": {
      return act(async () => (await element(ctx, t, sub)).setChecked(sub === "check"));
    }
    case "select": {
      if (rest.length < 2) usage("select <@ref|selector> <value...>");
      const chosen = await (await element(ctx, t, "select")).select(rest.slice(1));
      return { text: chosen.join("\n"), data: chosen };
    }
    case "find": return find(ctx, rest);
    case "set": {
      if (t !== "viewport" || !/^\d+$/.test(rest[1] ?? "") || !/^\d+$/.test(rest[2] ?? "")) usage("set viewport <width> <height>");
      const [width, height] = [Number(rest[1]), Number(rest[2])];
      if (width < 100 || width > 4_000 || height < 100 || height > 4_000) throw new CommandError("the viewport is 100 to 4000 pixels each way");
      await page.setViewport({ width, height });
      return {};
    }
    case "cookies": return cookies(ctx, rest);
    case "scroll": {
      const dir = /^(up|down|left|right)$/.test(t ?? "") ? t! : "down";
      const px = Number(rest[dir === t ? 1 : 0] ?? DEFAULT_SCROLL_PX);
      if (!Number.isFinite(px)) usage("scroll [up|down|left|right] [pixels]");
      const sign = dir === "up" || dir === "left" ? -1 : 1;
      return act(() => page.evaluate((x: number, y: number) => window.scrollBy(x, y), dir === "left" || dir === "right" ? sign * px : 0, dir === "up" || dir === "down" ? sign * px : 0));
    }
    case "scrollintoview": case "scrollinto": return act(async () => (await element(ctx, t, "scrollintoview")).scrollIntoView());
    case "wait": return wait(ctx, rest);
    case "get": return get(ctx, rest);
    case "is": return is(ctx, rest);
    case "eval": {
      if (!rest.length) usage("eval <javascript>");
      // Bounded in the page, before the value crosses (a 200 MB string would otherwise reach the server whole).
      const r = await evaluateScript(page, rest.join(" "), MAX_READ_CHARS);
      return { text: typeof r.value === "string" ? r.value : JSON.stringify(r.value), data: r.value };
    }
    case "screenshot": {
      const full = takeFlag(rest, ["--full", "-f"], false) === true;
      const url = await screenshotToFile(page, full, ctx.saveFile, ctx.shots);
      return { text: url, data: { url } };
    }
    default:
      throw new CommandError(sub ? `unknown command: ${sub} (crawlbox's agent-browser: docs/interact.md lists the commands)` : "usage: agent-browser <command> [args]", 2);
  }
}
