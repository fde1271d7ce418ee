/**
 * @module interact/sandbox/python-prelude
 * What browser `code` in `language: "python"` runs in (interact/sandbox/run.ts): CPython (Pyodide,
 * interact/sandbox/python-boot.ts) started in the same offline sandbox page as JavaScript code, with the same
 * `page` and channel (interact/sandbox/prelude.ts), wrapped for Python as Playwright's async Python API names it:
 * `await page.goto(url, wait_until="load")`, `page.get_by_role("button", name="Send")`, `page.url`,
 * `locator.first`, `response.status`. Each call still crosses the channel to crawlbox, which checks it as it checks
 * JavaScript's. Python's `print` goes to stdout and `sys.stderr` to stderr; an exception ends the code with exit code
 * 1 and a traceback of the code's own lines (`File "<code>", line 3`).
 */
/**
 * The Python side: `_cb_main(code, page)` runs the caller's code (top-level `await` allowed) with `page` wrapped,
 * and answers None, or the traceback of what it raised. Kept as Python source (sent to the page as an argument, so no
 * JavaScript or TypeScript escaping touches it).
 */
export const PYTHON_PRELUDE = String.raw`
import ast, inspect, linecache, re, sys, traceback
import js
from pyodide.ffi import JsException, JsProxy, create_proxy

# Playwright's Python API reads these as properties (page.url, locator.first, response.status); the JavaScript page
# has them as functions or objects.
_PROPS = frozenset(("url", "keyboard", "mouse", "first", "last", "status", "ok"))


class Error(Exception):
    """What a page call failed with, in crawlbox's words (Playwright's Python API raises its own Error)."""


# Names whose JavaScript spelling keeps an acronym whole.
_SPELLED = {"wait_for_url": "waitForURL", "inner_html": "innerHTML"}


def _camel(name):
    if name in _SPELLED:
        return _SPELLED[name]
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _to_js(v):
    if isinstance(v, _Api):
        return v._js
    if isinstance(v, re.Pattern):
        flags = ("i" if v.flags & re.IGNORECASE else "") + ("m" if v.flags & re.MULTILINE else "") + ("s" if v.flags & re.DOTALL else "")
        return js.RegExp.new(v.pattern, flags)
    if isinstance(v, dict):
        o = js.Object.new()
        for k, x in v.items():
            js.Reflect.set(o, _camel(str(k)), _to_js(x))
        return o
    if isinstance(v, (list, tuple)):
        a = js.Array.new()
        for x in v:
            a.push(_to_js(x))
        return a
    if callable(v):
        # A predicate (wait_for_url(lambda url: ...)) gets the URL as Python's does: a string.
        return create_proxy(lambda u, *rest: bool(v(str(getattr(u, "href", u)))))
    return v


def _py(v):
    if not isinstance(v, JsProxy):
        return v
    if js.Array.isArray(v):
        return [_py(x) for x in v]
    if v.typeof == "object" and any(getattr(x, "typeof", "") == "function" for x in js.Object.values(v)):
        return _Api(v)
    return v.to_py()


async def _settle(promise, name):
    try:
        value = await promise
    except JsException as e:
        message = str(getattr(e, "message", "") or e)
        raise Error(f"{name}: {message}") from None
    return _py(value)


class _Api:
    """A Playwright-style object (the page, a locator, a response, the keyboard, the mouse) with Python's names."""

    __slots__ = ("_js",)

    def __init__(self, obj):
        object.__setattr__(self, "_js", obj)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        member = getattr(self._js, _camel(name), None)
        if member is None:
            raise AttributeError(f"{name} is not in crawlbox's page API (docs/interact.md lists it)")
        if name in _PROPS:
            return _py(member() if callable(member) else member)
        if not callable(member):
            return _py(member)

        def call(*args, **kwargs):
            a = [_to_js(x) for x in args]
            if kwargs:
                a.append(_to_js(kwargs))
            try:
                r = member(*a)
            except JsException as e:
                raise Error(f"{name}: {getattr(e, 'message', '') or e}") from None
            return _settle(r, name) if inspect.isawaitable(r) else _py(r)

        call.__name__ = name
        return call

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} cannot be set")

    def __repr__(self):
        return "<crawlbox page object>"


async def _cb_main(code, page):
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    scope = {"__name__": "__main__", "__builtins__": __builtins__, "page": _Api(page), "Error": Error}
    try:
        try:
            compiled = compile(code, "<code>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError as e:
            return "".join(traceback.format_exception_only(type(e), e))
        result = eval(compiled, scope)
        if inspect.iscoroutine(result):
            await result
        return None
    except SystemExit as e:
        if e.code is None or e.code == 0:
            return None
        return f"SystemExit: {e.code}"
    except BaseException as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == "<code>"]
        head = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) if frames else ""
        return head + "".join(traceback.format_exception_only(type(e), e))
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;
