/**
 * @module interact/sandbox/prelude
 * What browser `code` in `language: "node"` finds around it in its sandbox (interact/sandbox/run.ts): a
 * Playwright-style `page` (with `locator`, `getByText`, `getByRole`, `keyboard`, `mouse`) and `console`. None of it does
 * anything itself: each method is one call through the sandbox's channel to crawlbox (interact/sandbox/channel.ts),
 * which carries it out on the session's page (interact/sandbox/page-api.ts) and checks every argument there. So the
 * sandbox needs no trust: code that sends through the channel directly, or redefines all of this, gets no more than
 * the methods give, and can send crawlbox no more than the channel's bounds.
 *
 * Plain JavaScript in a string, so that neither the TypeScript transpiler nor the binary's minifier can change names
 * the caller's code uses.
 */

import { CHANNEL_CLIENT } from "./channel.ts";
import { LAST_VALUE_REWRITE } from "./last-value.ts";
import { VALUE_TEXT } from "./value-text.ts";

/**
 * What both languages' wrappers begin with (as statements of an async function given `startUrl`): the outcome's
 * marker, the channel, `console` and the `page` whose calls cross it. The JavaScript wrapper below hands `page` and
 * `console` to the caller's code; the Python one (interact/sandbox/python-prelude.ts) wraps `page` for Python.
 */
export const PAGE_SETUP = `
  const root = document.documentElement;
  root.setAttribute("data-cb-run", "1");
  // What the wrapper itself waits with, taken before the code runs: code that replaces them (\`globalThis.setTimeout =
  // f => 0\`) must not keep the wrapper from telling its outcome, nor stall a page method.
  const Prom = Promise, timer = setTimeout, clock = Date.now;
  const sleep = (ms) => new Prom((r) => timer(r, ms));
  // The browser is answered here: what the code does after runs on its own (crawlbox waits for its outcome).
  await null;
  const channel = ${CHANNEL_CLIENT};
  const call = channel.send;
  let currentUrl = startUrl;
  const rpc = async (m, ...a) => {
    const r = await call({ m: m, a: a });
    if (r && typeof r.url === "string") currentUrl = r.url;
    return r ? r.v : undefined;
  };
${VALUE_TEXT}  const log = (level) => (...args) => { channel.note({ m: "log", a: [level, cut(format(args))] }); };
  const console = { log: log("out"), info: log("out"), debug: log("out"), warn: log("err"), error: log("err") };
  globalThis.console = console;
  // A string that is a function's source is a function, as Playwright takes it (page.evaluate("() => document.title"),
  // Python's only way to give one); any other string is an expression.
  const functionLike = (s) => /^\\s*(async\\s+)?(function\\b|\\([^()]*\\)\\s*=>|[A-Za-z_$][\\w$]*\\s*=>)/.test(s);
  const fnSource = (f) => ({ fn: typeof f === "function" || functionLike(String(f)), src: typeof f === "function" ? f.toString() : String(f) });
  // What each object this prelude makes is (page, locator, response, keyboard, mouse), for the Python wrapper: a
  // value read from the page is data, whatever its keys.
  const kinds = new WeakMap();
  const tag = (o, kind) => { kinds.set(o, kind); return o; };
  const kindOf = (o) => (o !== null && typeof o === "object" && kinds.get(o)) || null;
  function response(r) { return r ? tag({ status: () => r.status, ok: () => r.status >= 200 && r.status < 300, url: () => r.url }, "response") : null; }
  const by = {
    text: (text, o) => ({ text: String(text), exact: !!(o && o.exact) }),
    role: (role, o) => Object.assign({ role: String(role), exact: !!(o && o.exact) }, o && o.name !== undefined ? { name: String(o.name) } : {}),
    label: (text, o) => ({ label: String(text), exact: !!(o && o.exact) }),
    placeholder: (text, o) => ({ placeholder: String(text), exact: !!(o && o.exact) }),
    testId: (id) => ({ css: "[data-testid=" + JSON.stringify(String(id)) + "]" }),
  };
  // A locator: its chain of steps, and which of its matches (first unless pinned by first/last/nth, which a chained
  // locator keeps: li.nth(2).locator("a") looks inside the third li only).
  function locator(chain, nth, pinned) {
    const t = { chain: chain, nth: nth === undefined ? 0 : nth };
    const on = (m) => (...a) => rpc(m, t, ...a);
    // An action answers nothing, as Playwright's (Promise<void>): a script ending with one gives no value.
    const does = (m) => async (...a) => { await rpc(m, t, ...a); };
    const all = (m) => () => rpc(m, { chain: chain, nth: null });
    const last = chain[chain.length - 1];
    const sub = (s) => locator(chain.slice(0, -1).concat([pinned ? Object.assign({}, last, { nth: t.nth }) : last, s]), 0);
    return tag({
      click: does("click"), dblclick: does("dblclick"), hover: does("hover"), focus: does("focus"), fill: does("fill"), clear: does("clear"),
      type: does("type"), pressSequentially: does("type"), press: does("press"), check: does("check"), uncheck: does("uncheck"),
      selectOption: on("selectOption"), textContent: on("textContent"), innerText: on("innerText"), innerHTML: on("innerHTML"),
      getAttribute: on("getAttribute"), inputValue: on("inputValue"), isVisible: on("isVisible"), isHidden: async () => !(await rpc("isVisible", t)),
      isChecked: on("isChecked"), isEnabled: on("isEnabled"), scrollIntoViewIfNeeded: does("scrollIntoView"), boundingBox: on("boundingBox"),
      waitFor: async (o) => { await rpc("waitFor", t, o || {}); },
      count: all("count"), allTextContents: all("allTextContents"), allInnerTexts: all("allInnerTexts"),
      all: async () => { const n = await rpc("count", { chain: chain, nth: null }); return Array.from({ length: n }, (_, i) => locator(chain, i, true)); },
      first: () => locator(chain, 0, true), last: () => locator(chain, -1, true), nth: (i) => locator(chain, i, true),
      locator: (sel) => sub({ css: String(sel) }),
      getByText: (x, o) => sub(by.text(x, o)), getByRole: (x, o) => sub(by.role(x, o)), getByLabel: (x, o) => sub(by.label(x, o)),
      getByPlaceholder: (x, o) => sub(by.placeholder(x, o)), getByTestId: (x) => sub(by.testId(x)),
      evaluate: (f, arg) => rpc("evaluateOn", t, fnSource(f), arg === undefined ? null : arg),
    }, "locator");
  }
  // A navigation that failed may have left another document (the gate's answer, Chromium's error page): page.url()
  // is asked for again before the error goes on, so that it names the page the code finds.
  const navigation = async (m, ...a) => {
    try { return response(await rpc(m, ...a)); } catch (e) { await rpc("url").catch(() => undefined); throw e; }
  };
  const page = {
    goto: (url, o) => navigation("goto", String(url), o || {}),
    goBack: (o) => navigation("goBack", o || {}),
    goForward: (o) => navigation("goForward", o || {}),
    reload: (o) => navigation("reload", o || {}),
    url: () => currentUrl,
    title: () => rpc("title"), content: () => rpc("content"),
    evaluate: (f, arg) => rpc("evaluate", fnSource(f), arg === undefined ? null : arg),
    waitForTimeout: async (ms) => { await rpc("waitForTimeout", ms); },
    waitForLoadState: async (state, o) => { await rpc("waitForLoadState", state || "load", o || {}); },
    // Matched here, in the sandbox: a caller's pattern never runs in the server (a catastrophic one would stall it).
    waitForURL: async (u, o) => {
      // A glob: "*" (and "**") match anything; matched part by part, leftmost first, the last part at the end.
      const glob = (g) => { const parts = g.split("*"); return (x) => { if (!x.startsWith(parts[0])) return false; let at = parts[0].length; for (let k = 1; k < parts.length; k++) { const p = parts[k]; if (k === parts.length - 1) return x.length - p.length >= at && x.endsWith(p); const j = x.indexOf(p, at); if (j < 0) return false; at = j + p.length; } return at === x.length; }; };
      const test = u instanceof RegExp ? (x) => u.test(x) : typeof u === "function" ? (x) => !!u(new URL(x)) : String(u).includes("*") ? glob(String(u)) : (x) => x === String(u);
      const timeout = o && typeof o.timeout === "number" && o.timeout > 0 ? o.timeout : 30000;
      const end = clock() + timeout;
      for (;;) {
        const now = await rpc("url");
        if (test(now)) return;
        if (clock() > end) throw new Error("the page's URL did not match within " + timeout + " ms (it is " + now + ")");
        await sleep(100);
      }
    },
    waitForSelector: async (sel, o) => { await rpc("waitFor", { chain: [{ css: String(sel) }], nth: 0 }, o || {}); return locator([{ css: String(sel) }]); },
    screenshot: (o) => rpc("screenshot", o || {}),
    setViewportSize: async (size) => { await rpc("setViewportSize", size); },
    locator: (sel) => locator([{ css: String(sel) }]),
    getByText: (x, o) => locator([by.text(x, o)]), getByRole: (x, o) => locator([by.role(x, o)]), getByLabel: (x, o) => locator([by.label(x, o)]),
    getByPlaceholder: (x, o) => locator([by.placeholder(x, o)]), getByTestId: (x) => locator([by.testId(x)]),
    keyboard: { press: async (k) => { await rpc("keyPress", k); }, type: async (s) => { await rpc("keyType", s); }, down: async (k) => { await rpc("keyDown", k); }, up: async (k) => { await rpc("keyUp", k); } },
    mouse: { click: async (x, y) => { await rpc("mouseClick", x, y); }, wheel: async (dx, dy) => { await rpc("mouseWheel", dx, dy); } },
  };
  for (const m of ["click", "dblclick", "hover", "focus", "fill", "type", "press", "check", "uncheck", "selectOption", "textContent", "innerText", "innerHTML", "getAttribute", "inputValue", "isVisible", "isHidden", "isChecked", "isEnabled"]) {
    page[m] = (sel, ...a) => locator([{ css: String(sel) }])[m](...a);
  }
  tag(page, "page");
  tag(page.keyboard, "keyboard");
  tag(page.mouse, "mouse");
`;

/**
 * The prelude, as the function run in the sandbox page (channel.ts `startInPage`) with the caller's `code` (the body of
 * an async function, given `page` and `console`) and the session page's URL: it leaves in the document what the code
 * returned, or its last expression's value (interact/sandbox/last-value.ts), as text (`data-cb-result`), or what it
 * threw (`data-cb-error`). An exception nobody catches in a callback (a timer, an event) or a promise rejected with
 * no handler by the end of its task ends the code as its own throw does, as Node ends a script for them (`Uncaught`
 * and unhandled rejections are fatal there); one handled in the same turn is no error, and neither is one a listener
 * of the code's own takes (\`addEventListener("unhandledrejection", (e) => e.preventDefault())\`), as a
 * \`process.on("unhandledRejection")\` handler keeps Node going. Whichever outcome comes first is the code's.
 */
export const SANDBOX_WRAPPER = `async function (code, startUrl) {${PAGE_SETUP}
  let over = false;
  const apply = Reflect.apply, mark = Element.prototype.setAttribute;
  const prevented = Object.getOwnPropertyDescriptor(Event.prototype, "defaultPrevented").get;
  const end = (name, text) => { if (over) return; over = true; apply(mark, root, [name, text]); };
  // An uncaught error or rejection ends the code unless a listener of the code's own called preventDefault on it: that
  // is known once every listener has run (ours, registered first, runs first), so it is decided in a task of its own.
  // \`checks\`: the last decision pending, which the code's end waits for.
  let checks = null;
  const fatal = (ev, text) => { checks = new Prom((r) => timer(() => { if (!apply(prevented, ev, [])) end("data-cb-error", text()); r(); }, 0)); };
  globalThis.addEventListener("error", (ev) => fatal(ev, () => thrownText(ev.error != null ? ev.error : ev.message)));
  globalThis.addEventListener("unhandledrejection", (ev) => fatal(ev, () => {
    const why = ev.reason;
    return why instanceof Error ? thrownText(why) : "UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \\"" + toText(why, "(unprintable value)") + "\\".";
  }));
  try {
    const AsyncFunction = (async () => {}).constructor;
    // The code as written is parsed first: a syntax error is told as the code's own.
    let run = new AsyncFunction("page", "console", code);
    try {
      const parses = (body) => { try { new AsyncFunction("page", "console", body); return true; } catch (_) { return false; } };
      const rewrite = (${LAST_VALUE_REWRITE})(code, parses);
      if (rewrite) { run = new AsyncFunction("page", "console", rewrite.body); shape.moved = rewrite; }
    } catch (_) {
      // The code runs as written.
    }
    const value = await run(page, console);
    const text = value === undefined ? "" : show(value);
    // A promise the code left rejected and unhandled is told by the browser after this turn: it is waited for, as
    // Node checks for them before it ends, and so is the decision on it (above).
    await sleep(0);
    await sleep(0);
    for (let c = null; c !== checks; ) { c = checks; await c; }
    end("data-cb-result", text);
  } catch (e) {
    // What was thrown may refuse to be read (a stack getter that throws) or turned into text (an object without a
    // prototype): then what can be said of it is.
    end("data-cb-error", thrownText(e));
  }
}`;
