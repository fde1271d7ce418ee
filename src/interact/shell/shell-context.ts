/**
 * @module interact/shell/shell-context
 * What every `agent-browser` subcommand (agent-browser.ts, page-reads.ts, find.ts) works with: the session's page
 * and its limits, the error a command fails with, what it prints, and how a target names an element.
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { FileSink } from "../../scrape/render-context.ts";
import type { WorldElement } from "../isolated-world.ts";
import { PageOpError, type ShotBudget } from "../page-ops.ts";
import { findTarget } from "./snapshot.ts";

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
export interface Printed {
  text?: string;
  data?: unknown;
}

export const usage = (what: string): never => {
  throw new CommandError(`usage: agent-browser ${what}`, 2);
};

/** The element `target` names, or a clear error. */
export async function element(ctx: ShellContext, target: string | undefined, what: string): Promise<WorldElement> {
  if (!target) usage(`${what} <@ref|selector>`);
  const el = await findTarget(ctx.page, ctx.session, target!);
  if (!el) throw new CommandError(`no element matches ${target}${/^(@|ref=)/.test(target!) ? " (refs change with every snapshot and page: take a new one)" : ""}`);
  return el;
}

/** Reads `flag` (and its value) out of `args`, which keeps the rest. */
export function takeFlag(args: string[], names: string[], withValue: boolean): string | true | undefined {
  const i = args.findIndex((a) => names.includes(a));
  if (i < 0) return undefined;
  const value = withValue ? args[i + 1] : undefined;
  if (withValue && value === undefined) throw new CommandError(`${args[i]} needs a value`, 2);
  args.splice(i, withValue ? 2 : 1);
  return value ?? true;
}
