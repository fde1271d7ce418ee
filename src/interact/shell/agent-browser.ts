/**
 * @module interact/shell/agent-browser
 * The `agent-browser` command of browser `code` in `language: "bash"` (docs/interact.md): the subcommands of the
 * agent-browser CLI that upstream's sandboxes run (open, snapshot with refs, click, fill, press, get, wait, eval,
 * screenshot, …), carried out by crawlbox on the session's page. The page is the session's: every request it makes
 * goes through the egress gate like any browser page, and `open` checks its URL first. Targets are a snapshot's refs
 * (`@e3`) or CSS selectors (the first match), found and acted on from the page's isolated world
 * (interact/isolated-world.ts); what is read from the page is bounded before it crosses.
 */
import type { HTTPResponse, Page } from "puppeteer-core";
import { SELECTOR_WAIT_CAP_MS } from "../../engines/browser/actions.ts";
import { settle } from "../driver.ts";
import { MAX_READ_CHARS, pageTitle } from "../isolated-world.ts";
import { checkFillable, evaluateBounded, navigableUrl, pressCombo, screenshotToFile, withoutErrorPrefix } from "../page-ops.ts";
import { sizeCheckedOp } from "../page-size.ts";
import { ownScript } from "../page-abandon.ts";
import { documentUrl, navigate } from "../sandbox/navigate.ts";
import { FIND_ARGS, find } from "./find.ts";
import { cookies, get, GET_ARGS, is, wait, WAIT_ARGS } from "./page-reads.ts";
import { CommandError, element, type Printed, type ShellContext, takeFlag, usage } from "./shell-context.ts";
import { takeSnapshot } from "./snapshot.ts";

export { CommandError, type ShellContext } from "./shell-context.ts";

/** Longest `open`, `back`, `forward` or `reload` may wait for the page to load. */
export const NAVIGATION_TIMEOUT_MS = 30_000;
/** Pixels `scroll` moves when it is not told. */
const DEFAULT_SCROLL_PX = 500;

/** Presses a key or a combination (`Control+a`), or holds or lets go of one. */
async function pressKeys(page: Page, combo: string | undefined, how: "press" | "down" | "up"): Promise<void> {
  if (!combo) usage(`${how === "press" ? "press" : `key${how}`} <key>`);
  await pressCombo(page, combo!, how);
}

/** A navigation (failing as a scrape of its URL would, sandbox/navigate.ts); prints the title and URL it led to. */
async function load(ctx: ShellContext, go: () => Promise<HTTPResponse | null>, to?: string): Promise<Printed> {
  await navigate(ctx, go, to);
  const title = await pageTitle(ctx.session).catch(() => "");
  const url = await documentUrl(ctx.session).catch(() => ctx.page.url());
  return { text: `✓ ${title}\n  ${url}`, data: { title, url } };
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
  // `type` presses keys on whatever it is given, as Playwright's; emptying needs a field.
  if (sub !== "type") await checkFillable(el);
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
      return load(ctx, () => ctx.page.goto(url, NAVIGATION), url);
    },
  },
  { names: ["back"], args: "", does: "go back in the history", run: (ctx) => load(ctx, () => ctx.page.goBack(NAVIGATION)) },
  { names: ["forward"], args: "", does: "go forward in the history", run: (ctx) => load(ctx, () => ctx.page.goForward(NAVIGATION)) },
  { names: ["reload"], args: "", does: "load the page again", run: (ctx) => load(ctx, () => ctx.page.reload(NAVIGATION)) },
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
      // Bounded in the page, before the value crosses (a 200 MB string would otherwise reach the server whole). A
      // navigation it starts (`location.href = …`) is the script's: stopped with it (interact/page-abandon.ts).
      const r = await ownScript(ctx.session, () => evaluateBounded(ctx.page, rest.join(" "), MAX_READ_CHARS));
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
  return sizeCheckedOp(ctx.page, () => command.run(ctx, rest, sub!)).catch((err: unknown) => {
    throw withoutErrorPrefix(err);
  });
}
