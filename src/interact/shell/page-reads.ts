/**
 * @module interact/shell/page-reads
 * The `agent-browser` subcommands that read the page or wait for it: `get`, `is`, `wait` and `cookies`
 * (agent-browser.ts lists them). What they read crosses from the page's isolated world bounded (isolated-world.ts).
 */
import { SELECTOR_WAIT_CAP_MS } from "../../engines/browser/actions.ts";
import { inWorld, pageTitle } from "../isolated-world.ts";
import { poll } from "../page-ops.ts";
import { documentUrl } from "../sandbox/navigate.ts";
import { CommandError, element, type Printed, type ShellContext, takeFlag, usage } from "./shell-context.ts";
import { countMatches, findTarget } from "./snapshot.ts";

/**
 * How long `get url` waits for the page's own answer before it takes puppeteer's: a page whose thread is busy (its
 * own busy loop) would hold it, and its script, until the time ran out, and the session would be dropped for it.
 */
const URL_ANSWER_MS = 500;

/**
 * The page's URL: the document's, as `get title` reads the title (puppeteer's lags a moment behind a failed
 * navigation's error page), or puppeteer's when the page does not answer within {@link URL_ANSWER_MS}.
 */
async function pageUrl(ctx: ShellContext): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), URL_ANSWER_MS)));
  try {
    const read = documentUrl(ctx.session).catch(() => undefined);
    return (await Promise.race([read, late])) ?? ctx.page.url();
  } finally {
    clearTimeout(timer);
  }
}

/** The arguments `get` takes, as its usage line and the help print them. */
export const GET_ARGS = "title|url|text|html|value|attr|count|box [@ref|selector] [name]";
/** The arguments `wait` takes, as its usage line and the help print them. */
export const WAIT_ARGS = "<ms|@ref|selector> | --text <text> | --url <part> | --load <load|domcontentloaded|networkidle>";

/** `get <what> [target] [name]`. */
export async function get(ctx: ShellContext, args: string[]): Promise<Printed> {
  const [what, target, name] = args;
  const read = async (fn: string) => (await element(ctx, target, `get ${what}`)).call(fn, name ?? null);
  let v: unknown;
  switch (what) {
    case "title": v = await pageTitle(ctx.session); break;
    case "url": v = await pageUrl(ctx); break;
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
export async function is(ctx: ShellContext, [what, target]: string[]): Promise<Printed> {
  // An element that is not there is not visible (as Playwright's isVisible): false, not an error.
  if (what === "visible" && target) {
    const found = await findTarget(ctx.page, ctx.session, target);
    const v = found ? await found.visible() : false;
    return { text: String(v), data: v };
  }
  const el = await element(ctx, target, `is ${what ?? "visible"}`);
  let v: boolean;
  if (what === "visible") v = await el.visible();
  else if (what === "enabled") v = (await el.call("function () { return !this.disabled; }")) as boolean;
  else if (what === "checked") v = (await el.call("function () { return !!this.checked; }")) as boolean;
  else return usage("is visible|enabled|checked <@ref|selector>");
  return { text: String(v), data: v };
}

/**
 * Waits until `found()` says yes, polling, {@link SELECTOR_WAIT_CAP_MS} at most (and no longer than the script); a look
 * that does not answer (the page's thread busy) counts as a no once the time is up.
 */
async function until(found: () => Promise<boolean>, what: string, signal: AbortSignal = new AbortController().signal): Promise<void> {
  const late = Bun.sleep(SELECTOR_WAIT_CAP_MS).then(() => false);
  const look = async () => (await Promise.race([found(), late])) || undefined;
  if (!(await poll(look, SELECTOR_WAIT_CAP_MS, signal))) throw new CommandError(`${what} within ${SELECTOR_WAIT_CAP_MS / 1000} s`);
}

/**
 * Whether `expression` (about the document) holds, asked in crawlbox's isolated world of the page: the page's own
 * JavaScript cannot redefine what it reads (`innerText`, `location`, `includes`) to fake or stall the answer.
 */
const holds = (ctx: ShellContext, expression: string) => async () => (await inWorld(ctx.session, expression).catch(() => ({ value: false }))).value === true;

/** `wait <target>`, `wait --text <text>`, `wait --url <part>`, `wait --load <state>` (`wait <ms>` is run.ts's: no page in it). */
export async function wait(ctx: ShellContext, args: string[]): Promise<Printed> {
  const { page } = ctx;
  const text = takeFlag(args, ["--text"], true);
  const url = takeFlag(args, ["--url"], true);
  const load = takeFlag(args, ["--load"], true);
  if (typeof text === "string") await until(holds(ctx, `!!document.body && document.body.innerText.includes(${JSON.stringify(text)})`), `the text ${JSON.stringify(text)} did not appear`, ctx.signal);
  else if (typeof url === "string") await until(holds(ctx, `location.href.includes(${JSON.stringify(url)})`), `the URL did not come to contain ${JSON.stringify(url)}`, ctx.signal);
  else if (load === "networkidle") await page.waitForNetworkIdle({ idleTime: 500, timeout: SELECTOR_WAIT_CAP_MS });
  else if (typeof load === "string") await until(holds(ctx, load === "domcontentloaded" ? `document.readyState !== "loading"` : `document.readyState === "complete"`), `the page did not reach ${load}`, ctx.signal);
  else if (args[0]) await until(async () => (await findTarget(page, ctx.session, args[0]!)) !== undefined, `${args[0]} did not appear`, ctx.signal);
  else usage(`wait ${WAIT_ARGS}`);
  return {};
}

/** `cookies` (the page's, as JSON), `cookies set NAME VALUE`, `cookies clear` (the page's URL's cookies). */
export async function cookies(ctx: ShellContext, args: string[]): Promise<Printed> {
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
