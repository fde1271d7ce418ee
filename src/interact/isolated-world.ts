/**
 * @module interact/isolated-world
 * Where crawlbox finds and keeps the elements browser code and prompts act on: an isolated world of the session
 * page's main frame, made once per document and reused. The page shares its DOM with that world, not its
 * JavaScript: it cannot see what crawlbox keeps there (a snapshot's refs, a locator's matches, a prompt's numbered
 * elements), cannot redefine what crawlbox calls, and cannot move a ref to another element. (Marks in the DOM, which
 * the first version used, could be copied by the page onto an element of its choosing.)
 *
 * Elements are held as the world's object ids and acted on through CDP and real input: a click scrolls the element
 * into view, checks that it is the element at its centre (not something laid over it), and clicks there; typing
 * focuses it and types. Values read from it are read and bounded before they cross: crawlbox's checks here, and what
 * the caller's code asks for (a locator's `evaluate`, its reads) in a world of their own (interact/code-world.ts), so
 * that no caller's code runs in this one either.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { boundedSource, fromBounded } from "../engines/browser/budgeted-json.ts";
import { evaluateInCodeWorld, STALE_WORLD, thrownError } from "./code-world.ts";
import { PageOpError } from "./page-ops.ts";

/** Characters of a value read from the page (text, HTML, a script's result). */
export const MAX_READ_CHARS = 1_000_000;

const WORLD = "crawlbox";
const worlds = new WeakMap<CDPSession, { frameId: string; contextId: number }>();

type Remote = { objectId?: string; subtype?: string; value?: unknown; type: string };

/** The execution context id of the session page's isolated world (made if there is none yet). */
export async function worldContextId(session: CDPSession): Promise<number> {
  let world = worlds.get(session);
  if (!world) {
    const { frameTree } = await session.send("Page.getFrameTree");
    const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: WORLD });
    world = { frameId: frameTree.frame.id, contextId: executionContextId };
    worlds.set(session, world);
  }
  return world.contextId;
}

/** Evaluates `expression` in the session page's isolated world (made again when the document changed). */
export async function inWorld(session: CDPSession, expression: string, returnByValue = true): Promise<Remote> {
  for (let attempt = 0; ; attempt++) {
    const contextId = await worldContextId(session);
    try {
      const { result, exceptionDetails } = await session.send("Runtime.evaluate", { expression, contextId, returnByValue, awaitPromise: true });
      if (exceptionDetails) throw thrownError(exceptionDetails);
      return result as Remote;
    } catch (err) {
      // The document it belonged to is gone (a navigation): a new world for the new document, once.
      if (attempt === 0 && STALE_WORLD.test((err as Error).message)) {
        worlds.delete(session);
        continue;
      }
      throw err;
    }
  }
}

/** Characters of a page's title read (a page may set one of millions). */
const MAX_TITLE_CHARS = 10_000;

/** The page's title, cut in the world to {@link MAX_TITLE_CHARS} before it crosses. */
export async function pageTitle(session: CDPSession): Promise<string> {
  return (await inWorld(session, `document.title.slice(0, ${MAX_TITLE_CHARS})`)).value as string;
}

/**
 * Bounds a read of crawlbox's own in the world: throws there, before the value crosses, when it is too long. A value
 * other than a string crosses as its JSON text, written no further than the bound (engines/browser/budgeted-json.ts),
 * so what crosses is what was measured. (Functions that may be a caller's run in the code world, {@link WorldElement.call}.)
 */
const BOUNDED = boundedSource(MAX_READ_CHARS, "the value is");

/** An element held in the isolated world. */
export class WorldElement {
  constructor(
    private readonly page: Page,
    private readonly session: CDPSession,
    private readonly objectId: string,
  ) {}

  /**
   * Runs `fn` (source of `function (arg) {…}`, `this` the element) on it, in the code world (interact/code-world.ts):
   * a locator's `evaluate` (the caller's source inside it) and the reads asked for by the caller's code. Its value,
   * bounded there, as JSON gives it back (a string as it is; `undefined` when JSON has nothing for it). Not in
   * crawlbox's world: the caller's code would run where crawlbox's reads do, and could change what they call.
   */
  async call(fn: string, arg: unknown = null): Promise<unknown> {
    return evaluateInCodeWorld(this.session, this.objectId, fn, arg, MAX_READ_CHARS);
  }

  /** Runs `fn`, crawlbox's own (source of `function (arg) {…}`, `this` the element), in crawlbox's world, bounded there. */
  private async own(fn: string, arg: unknown = null): Promise<unknown> {
    const { result, exceptionDetails } = await this.session.send("Runtime.callFunctionOn", {
      objectId: this.objectId,
      functionDeclaration: `function (arg) { return (${BOUNDED})((${fn}).call(this, arg)); }`,
      arguments: [{ value: arg }],
      returnByValue: true,
      awaitPromise: true,
    });
    if (exceptionDetails) throw thrownError(exceptionDetails);
    return fromBounded(result.value);
  }

  /** Scrolls it into view and returns the centre of its box, after checking that the element there is it (or inside it). */
  private async centre(): Promise<{ x: number; y: number }> {
    await this.session.send("DOM.scrollIntoViewIfNeeded", { objectId: this.objectId }).catch(() => undefined);
    const at = (await this.own(`function () {
      const r = this.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return { hidden: true };
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return { x: x, y: y, covered: !!hit && hit !== this && !this.contains(hit) && !(hit.shadowRoot && hit.contains(this)) };
    }`)) as { x?: number; y?: number; hidden?: boolean; covered?: boolean };
    if (at.hidden) throw new PageOpError("the element is not visible (it has no size)");
    if (at.covered) throw new PageOpError("another element covers it (at its centre)");
    return { x: at.x!, y: at.y! };
  }

  /**
   * Clicks its centre: the pointer is moved there first and the element under it checked again, so that a page that
   * lays a decoy over it when the pointer arrives gets an error, not the click.
   */
  async click(count = 1): Promise<void> {
    const { x, y } = await this.centre();
    await this.page.mouse.move(x, y);
    const again = await this.centre();
    if (again.x !== x || again.y !== y) throw new PageOpError("the element moved as the pointer reached it");
    await this.page.mouse.click(x, y, { count });
  }

  async hover(): Promise<void> {
    const { x, y } = await this.centre();
    await this.page.mouse.move(x, y);
  }

  async focus(): Promise<void> {
    await this.own("function () { this.focus(); }");
  }

  async scrollIntoView(): Promise<void> {
    await this.session.send("DOM.scrollIntoViewIfNeeded", { objectId: this.objectId });
  }

  /** Empties it (a form field, or an editable element), telling the page as typing would. */
  async clear(): Promise<void> {
    await this.own(`function () { if ("value" in this) this.value = ""; else this.textContent = ""; this.dispatchEvent(new Event("input", { bubbles: true })); }`);
  }

  /** Focuses it and types `text` with real key presses. */
  async type(text: string): Promise<void> {
    await this.focus();
    await this.page.keyboard.type(text);
  }

  /**
   * Ticks or unticks it (a checkbox or radio), by a click and only when needed. A box hidden under its own styled
   * label (a common custom checkbox) cannot be clicked at its centre: it is then clicked in the DOM, which is this
   * very element whatever lies over it.
   */
  async setChecked(on: boolean): Promise<void> {
    if ((await this.own("function () { return !!this.checked; }")) === on) return;
    await this.click().catch(async (err: unknown) => {
      if (!(err instanceof PageOpError)) throw err;
      await this.domClick();
    });
    if ((await this.own("function () { return !!this.checked; }")) !== on) throw new PageOpError(`the element did not become ${on ? "checked" : "unchecked"}`);
  }

  /** A click dispatched on it in the DOM (Playwright's `force`): no pointer, no check of what lies over it. */
  async domClick(): Promise<void> {
    await this.own("function () { this.click(); }");
  }

  /** Chooses the options with these values (a `<select>`); the values chosen. */
  async select(values: string[]): Promise<string[]> {
    return (await this.own(
      `function (values) {
        if (this.tagName !== "SELECT") throw new Error("the element is not a <select>");
        const options = Array.from(this.options);
        const missing = values.filter((v) => !options.some((o) => o.value === v));
        if (missing.length) throw new Error("the <select> has no option with the value " + JSON.stringify(missing[0]));
        if (this.multiple) for (const o of options) o.selected = values.includes(o.value);
        else this.value = values[0];
        this.dispatchEvent(new Event("input", { bubbles: true })); this.dispatchEvent(new Event("change", { bubbles: true }));
        return Array.from(this.selectedOptions).map((o) => o.value);
      }`,
      values,
    )) as string[];
  }

  async visible(): Promise<boolean> {
    return (await this.own(`function () { return typeof this.checkVisibility === "function" ? this.checkVisibility({ visibilityProperty: true }) : !!(this.offsetWidth || this.offsetHeight); }`)) as boolean;
  }

  async box(): Promise<{ x: number; y: number; width: number; height: number } | null> {
    return (await this.own(`function () { const r = this.getBoundingClientRect(); return r.width || r.height ? { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height } : null; }`)) as never;
  }
}

/** The element `expression` (evaluated in the world) gives; undefined when it gives none. */
export async function worldElement(page: Page, session: CDPSession, expression: string): Promise<WorldElement | undefined> {
  const r = await inWorld(session, expression, false);
  if (r.subtype !== "node" || !r.objectId) return undefined;
  return new WorldElement(page, session, r.objectId);
}
