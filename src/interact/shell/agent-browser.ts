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
import { FIND_ARGS } from "./find-args.ts";
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

const GET_ARGS = "title|url|text|html|value|attr|count|box [@ref|selector] [name]";
const WAIT_ARGS = "<ms|@ref|selector> | --text <text> | --url <part> | --load <load|domcontentloaded|networkidle>";

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
    default: usage(`get ${GET_ARGS}`);
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
  else usage(`wait ${WAIT_ARGS}`);
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

/** One `agent-browser` subcommand: the table below is both what runs and what `agent-browser --help` prints. */
interface Command {
  /** Its name, then the other names it answers to. */
  names: readonly string[];
  /** Its arguments, as the help shows them. */
  args: string;
  /** What it does, in a line. */
  does: string;
  run(ctx: ShellContext, rest: string[], name: string): Promise<Printed>;
}

const NAVIGATION = { waitUntil: "load" as const, timeout: NAVIGATION_TIMEOUT_MS };

/** Does `fn` on the page, then waits for it to settle; prints nothing. */
async function act(ctx: ShellContext, fn: () => Promise<unknown>): Promise<Printed> {
  await fn();
  await settle(ctx.page);
  return {};
}

/** `snapshot [-i] [-c] [-d N] [-s selector]`. */
async function snapshot(ctx: ShellContext, rest: string[]): Promise<Printed> {
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

/** `scroll [up|down|left|right] [pixels]`. */
async function scroll(ctx: ShellContext, [t, ...rest]: string[]): Promise<Printed> {
  const dir = /^(up|down|left|right)$/.test(t ?? "") ? t! : "down";
  const px = Number((dir === t ? rest[0] : t) ?? DEFAULT_SCROLL_PX);
  if (!Number.isFinite(px)) usage("scroll [up|down|left|right] [pixels]");
  const sign = dir === "up" || dir === "left" ? -1 : 1;
  return act(ctx, () => ctx.page.evaluate((x: number, y: number) => window.scrollBy(x, y), dir === "left" || dir === "right" ? sign * px : 0, dir === "up" || dir === "down" ? sign * px : 0));
}

const TARGET = "<@ref|selector>";

/** `fill`, `type` and `clear`: `fill` and `clear` empty the field first, `fill` and `type` type the text. */
async function typeInto(ctx: ShellContext, [t, ...text]: string[], sub: string): Promise<Printed> {
  const el = await element(ctx, t, sub === "clear" ? "clear" : `${sub} ${TARGET} <text>`);
  if (sub !== "type") await el.clear();
  if (sub !== "clear") await el.type(text.join(" "));
  return {};
}

/** The commands, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  {
    names: ["open", "goto", "navigate"],
    args: "<url>",
    does: "load a page (http, https or about:blank) and print its title and URL",
    async run(ctx, [t]) {
      if (!t) usage("open <url>");
      const url = navigableUrl(t!);
      if (url !== "about:blank") await ctx.check(url);
      return navigate(ctx, () => ctx.page.goto(url, NAVIGATION));
    },
  },
  { names: ["back"], args: "", does: "go back in the history", run: (ctx) => navigate(ctx, () => ctx.page.goBack(NAVIGATION)) },
  { names: ["forward"], args: "", does: "go forward in the history", run: (ctx) => navigate(ctx, () => ctx.page.goForward(NAVIGATION)) },
  { names: ["reload"], args: "", does: "load the page again", run: (ctx) => navigate(ctx, () => ctx.page.reload(NAVIGATION)) },
  {
    names: ["snapshot"],
    args: "[-i] [-c] [-d <depth>] [-s <selector>]",
    does: "print the page's outline, each element with a ref (@e1) to act on; -i: interactive elements only",
    run: snapshot,
  },
  { names: ["click"], args: TARGET, does: "click an element", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "click")).click()) },
  { names: ["dblclick"], args: TARGET, does: "double-click an element", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "dblclick")).click(2)) },
  { names: ["hover"], args: TARGET, does: "move the pointer over an element", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "hover")).hover()) },
  { names: ["focus"], args: TARGET, does: "focus an element", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "focus")).focus()) },
  { names: ["fill"], args: `${TARGET} <text>`, does: "empty a field and type the text into it", run: typeInto },
  { names: ["type"], args: `${TARGET} <text>`, does: "type the text into a field, after what it holds", run: typeInto },
  { names: ["clear"], args: TARGET, does: "empty a field", run: typeInto },
  { names: ["press", "key"], args: "<key>", does: "press a key or a combination (Enter, Tab, Control+a)", run: (ctx, [t]) => act(ctx, () => pressKeys(ctx.page, t, "press")) },
  { names: ["keydown"], args: "<key>", does: "hold a key down", run: (ctx, [t]) => act(ctx, () => pressKeys(ctx.page, t, "down")) },
  { names: ["keyup"], args: "<key>", does: "let go of a key", run: (ctx, [t]) => act(ctx, () => pressKeys(ctx.page, t, "up")) },
  { names: ["check"], args: TARGET, does: "tick a checkbox or a radio button", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "check")).setChecked(true)) },
  { names: ["uncheck"], args: TARGET, does: "untick a checkbox", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "uncheck")).setChecked(false)) },
  {
    names: ["select"],
    args: `${TARGET} <value...>`,
    does: "choose options of a <select> by value or label, and print the values chosen",
    async run(ctx, [t, ...values]) {
      if (values.length < 1) usage(`select ${TARGET} <value...>`);
      const chosen = await (await element(ctx, t, "select")).select(values);
      return { text: chosen.join("\n"), data: chosen };
    },
  },
  { names: ["find"], args: FIND_ARGS, does: "find an element by role, text, label, placeholder, test id or position, and act on it", run: (ctx, rest) => find(ctx, rest) },
  {
    names: ["set"],
    args: "viewport <width> <height>",
    does: "resize the viewport (100 to 4000 pixels each way)",
    async run(ctx, [t, w, h]) {
      if (t !== "viewport" || !/^\d+$/.test(w ?? "") || !/^\d+$/.test(h ?? "")) usage("set viewport <width> <height>");
      const [width, height] = [Number(w), Number(h)];
      if (width < 100 || width > 4_000 || height < 100 || height > 4_000) throw new CommandError("the viewport is 100 to 4000 pixels each way");
      await ctx.page.setViewport({ width, height });
      return {};
    },
  },
  { names: ["cookies"], args: "[set <name> <value> | clear]", does: "print the page's cookies as JSON, or set or clear them", run: cookies },
  { names: ["scroll"], args: "[up|down|left|right] [pixels]", does: `scroll the page (down, ${DEFAULT_SCROLL_PX} pixels unless told)`, run: scroll },
  { names: ["scrollintoview", "scrollinto"], args: TARGET, does: "scroll an element into view", run: (ctx, [t]) => act(ctx, async () => (await element(ctx, t, "scrollintoview")).scrollIntoView()) },
  {
    names: ["wait"],
    args: WAIT_ARGS,
    does: `wait some milliseconds, or up to ${SELECTOR_WAIT_CAP_MS / 1000} s for an element, a text, a URL or a load state`,
    run: wait,
  },
  { names: ["get"], args: GET_ARGS, does: "print the page's title or URL, or an element's text, HTML, value, attribute, count or box", run: get },
  { names: ["is"], args: `visible|enabled|checked ${TARGET}`, does: "print true or false", run: is },
  {
    names: ["eval"],
    args: "<javascript>",
    does: "run JavaScript in the page and print its value",
    async run(ctx, rest) {
      if (!rest.length) usage("eval <javascript>");
      // Bounded in the page, before the value crosses (a 200 MB string would otherwise reach the server whole).
      const r = await evaluateScript(ctx.page, rest.join(" "), MAX_READ_CHARS);
      return { text: typeof r.value === "string" ? r.value : JSON.stringify(r.value), data: r.value };
    },
  },
  {
    names: ["screenshot"],
    args: "[path] [--full]",
    does: "store a PNG of the viewport (or the full page) for 24 h and print its URL (a path names nothing here)",
    async run(ctx, rest) {
      const full = takeFlag(rest, ["--full", "-f"], false) === true;
      const url = await screenshotToFile(ctx.page, full, ctx.saveFile, ctx.shots);
      return { text: url, data: { url } };
    },
  },
  { names: ["close"], args: "", does: "end the session once the script has run", run: async (ctx) => ((ctx.closeRequested = true), { text: "✓ Browser closed" }) },
  { names: ["help", "--help", "-h"], args: "", does: "print this list", run: async () => ({ text: helpText(), data: helpText() }) },
];

const BY_NAME = new Map(COMMANDS.flatMap((c) => c.names.map((n) => [n, c] as const)));

/** What `agent-browser --help` prints: each command of {@link COMMANDS}, its arguments and what it does. */
export function helpText(): string {
  const lines = ["usage: agent-browser <command> [args] [--json]", "", "Commands (crawlbox's agent-browser, on the session's page):"];
  for (const c of COMMANDS) {
    lines.push(`  ${[c.names[0], c.args].filter(Boolean).join(" ")}`);
    lines.push(`      ${c.does}${c.names.length > 1 ? ` (also: ${c.names.slice(1).join(", ")})` : ""}`);
  }
  lines.push("", `${TARGET}: a ref from the last snapshot (@e3) or a CSS selector (its first match).`, "--json: print {success, data} (or {success: false, error}) instead of text.");
  return lines.join("\n");
}

/**
 * Carries out one `agent-browser` subcommand (`args` without the command name); see the module comment. A main
 * document past the page limit while it runs (`open`, a click that navigates, …) fails it (interact/page-size.ts).
 * The help touches no page.
 */
export function agentBrowser(ctx: ShellContext, args: string[]): Promise<Printed> {
  const [sub, ...rest] = args;
  const command = sub === undefined ? undefined : BY_NAME.get(sub);
  if (!command) {
    throw new CommandError(sub ? `unknown command: ${sub} (agent-browser --help lists the commands)` : "usage: agent-browser <command> [args] (agent-browser --help lists the commands)", 2);
  }
  if (command.names[0] === "help") return command.run(ctx, rest, sub!);
  return sizeCheckedOp(ctx.page, () => command.run(ctx, rest, sub!));
}
