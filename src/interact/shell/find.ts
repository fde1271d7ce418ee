/**
 * @module interact/shell/find
 * agent-browser's semantic locators: `agent-browser find <how> <what> <action> [value] [--name NAME] [--exact]`,
 * finding the element the way JavaScript code's `getByRole`/`getByText`/… do (interact/sandbox/locate.ts: visible
 * elements, in the page's isolated world) and doing one thing with it:
 *
 *   find role button click --name "Sign in"      find text "Accept" click       find label Email fill me@example.com
 *   find placeholder "Search" type shoes          find testid cart click         find first ".item" text
 *   find last "li" text                           find nth 2 "a" click           (nth counts from 0, as Playwright's)
 *
 * Actions: click, dblclick, hover, focus, fill VALUE, type VALUE, check, uncheck, text (prints it). The element is
 * waited for (to be visible, for an action) up to `--timeout MS`, 30 s at most and by default.
 */
import { SELECTOR_WAIT_CAP_MS } from "../../engines/browser/actions.ts";
import { settle } from "../driver.ts";
import { checkFillable } from "../page-ops.ts";
import { findOne, type Step } from "../sandbox/locate.ts";
import { CommandError, type ShellContext } from "./shell-context.ts";

/** `find`'s arguments, as its usage errors and `agent-browser --help` show them. */
export const FIND_ARGS = "role|text|label|placeholder|testid|first|last|nth <what> click|dblclick|hover|focus|fill|type|check|uncheck|text [value] [--name NAME] [--exact] [--timeout MS]";

const USAGE = `find ${FIND_ARGS}`;

/** Reads `--name NAME`, `--exact` and `--timeout MS` out of `args`, which keeps the rest. */
function options(args: string[]): { name?: string; exact: boolean; timeoutMs: number } {
  const out: { name?: string; exact: boolean; timeoutMs: number } = { exact: false, timeoutMs: SELECTOR_WAIT_CAP_MS };
  for (let i = 0; i < args.length; ) {
    if (args[i] === "--timeout") {
      if (!/^\d+$/.test(args[i + 1] ?? "")) throw new CommandError("--timeout needs milliseconds", 2);
      out.timeoutMs = Math.min(Number(args[i + 1]), SELECTOR_WAIT_CAP_MS);
      args.splice(i, 2);
    } else if (args[i] === "--exact") {
      out.exact = true;
      args.splice(i, 1);
    } else if (args[i] === "--name") {
      if (args[i + 1] === undefined) throw new CommandError("--name needs a value", 2);
      out.name = args[i + 1]!;
      args.splice(i, 2);
    } else i++;
  }
  return out;
}

/** `agent-browser find …` (`args` after `find`); what it printed. */
export async function find(ctx: ShellContext, args: string[]): Promise<{ text?: string; data?: unknown }> {
  const { name, exact, timeoutMs } = options(args);
  const [how, what, ...rest] = args;
  if (!how || what === undefined) throw new CommandError(`usage: agent-browser ${USAGE}`, 2);
  let step: Step;
  let nth = 0;
  let action = rest[0];
  let value = rest.slice(1).join(" ");
  const ex = exact ? { exact: true } : {};
  switch (how) {
    case "role": step = { role: what.toLowerCase(), ...(name !== undefined ? { name } : {}), ...ex }; break;
    case "text": step = { text: what, ...ex }; break;
    case "label": step = { label: what, ...ex }; break;
    case "placeholder": step = { placeholder: what, ...ex }; break;
    case "testid": step = { css: `[data-testid=${JSON.stringify(what)}]` }; break;
    case "first": step = { css: what }; break;
    case "last": step = { css: what }; nth = -1; break;
    case "nth": {
      if (!/^-?\d+$/.test(what) || rest[0] === undefined) throw new CommandError(`usage: agent-browser find nth <n> <selector> <action> [value]`, 2);
      nth = Number(what);
      step = { css: rest[0] };
      action = rest[1];
      value = rest.slice(2).join(" ");
      break;
    }
    default:
      throw new CommandError(`usage: agent-browser ${USAGE}`, 2);
  }
  const needsValue = action === "fill" || action === "type";
  if (!action || (needsValue && value === "")) throw new CommandError(`usage: agent-browser ${USAGE}`, 2);
  const el = await findOne(ctx.page, ctx.session, { chain: [step], nth }, timeoutMs, ctx.signal ?? new AbortController().signal, action !== "text");
  switch (action) {
    case "text": {
      const text = (await el.call("function () { return this.innerText; }")) as string;
      return { text, data: text };
    }
    case "click": await el.click(); break;
    case "dblclick": await el.click(2); break;
    case "hover": await el.hover(); break;
    case "focus": await el.focus(); break;
    case "fill": await checkFillable(el); await el.clear(); await el.type(value); break;
    case "type": await el.type(value); break;
    case "check": case "uncheck": await el.setChecked(action === "check"); break;
    default: throw new CommandError(`find cannot ${action}: ${USAGE}`, 2);
  }
  await settle(ctx.page);
  return {};
}
