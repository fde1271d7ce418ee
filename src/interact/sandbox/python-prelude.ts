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
import ast, builtins, inspect, linecache, os, re, sys, traceback, types
import js
from pyodide.ffi import JsException, JsProxy, create_proxy, jsnull


class Error(Exception):
    """What a page call failed with, in crawlbox's words (as Playwright's Python API raises its Error)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        self.name = type(self).__name__


class TimeoutError(Error, builtins.TimeoutError):
    """A page call that waited its time out (an element, a navigation, a state); also Python's own TimeoutError."""


def _failed(name, e):
    message = f"{name}: {getattr(e, 'message', '') or e}"
    timed_out = re.search(r"\b(after|within) \d+(\.\d+)? ?(ms|s)\b|[Tt]imeout", message)
    return (TimeoutError if timed_out else Error)(message)


# Per kind of object, each method's Python parameters: those given to the JavaScript call by position (data, passed
# as they are, by position or by name), and the keyword options it takes (camelCased into the call's last argument).
# An option outside these is refused, not ignored: a script that asks for what crawlbox does not do is told so.
_NAV = ("wait_until", "timeout")
_T = ("timeout",)
_FIND = {
    "locator": (("selector",), ()),
    "get_by_text": (("text",), ("exact",)),
    "get_by_role": (("role",), ("name", "exact")),
    "get_by_label": (("text",), ("exact",)),
    "get_by_placeholder": (("text",), ("exact",)),
    "get_by_test_id": (("test_id",), ()),
}
_LOCATOR = {
    **_FIND,
    "click": ((), ("click_count", "force", "timeout")),
    "dblclick": ((), _T), "hover": ((), _T), "focus": ((), _T), "clear": ((), _T),
    "fill": (("value",), _T), "type": (("text",), _T), "press_sequentially": (("text",), _T), "press": (("key",), _T),
    "check": ((), _T), "uncheck": ((), _T), "select_option": (("value",), _T),
    "text_content": ((), _T), "inner_text": ((), _T), "inner_html": ((), _T), "get_attribute": (("name",), _T),
    "input_value": ((), _T), "is_visible": ((), ()), "is_hidden": ((), ()), "is_checked": ((), _T), "is_enabled": ((), _T),
    "scroll_into_view_if_needed": ((), _T), "bounding_box": ((), _T), "wait_for": ((), ("state", "timeout")),
    "count": ((), ()), "all_text_contents": ((), ()), "all_inner_texts": ((), ()), "all": ((), ()),
    "nth": (("index",), ()), "evaluate": (("expression", "arg"), ()),
}
_PAGE = {
    **_FIND,
    "goto": (("url",), _NAV), "go_back": ((), _NAV), "go_forward": ((), _NAV), "reload": ((), _NAV),
    "title": ((), ()), "content": ((), ()), "evaluate": (("expression", "arg"), ()),
    "wait_for_timeout": (("timeout",), ()), "wait_for_load_state": (("state",), _T), "wait_for_url": (("url",), _T),
    "wait_for_selector": (("selector",), ("state", "timeout")), "screenshot": ((), ("full_page",)),
    "set_viewport_size": (("viewport_size",), ()),
    "click": (("selector",), ("click_count", "force", "timeout")),
    **{m: (("selector",), _T) for m in ("dblclick", "hover", "focus", "check", "uncheck", "text_content", "inner_text", "inner_html", "input_value", "is_checked", "is_enabled")},
    "is_visible": (("selector",), ()), "is_hidden": (("selector",), ()),
    "fill": (("selector", "value"), _T), "type": (("selector", "text"), _T), "press": (("selector", "key"), _T),
    "select_option": (("selector", "value"), _T), "get_attribute": (("selector", "name"), _T),
}
_KINDS = {
    "page": (_PAGE, {"url": "call", "keyboard": "get", "mouse": "get"}),
    "locator": (_LOCATOR, {"first": "call", "last": "call"}),
    "keyboard": ({"press": (("key",), ()), "type": (("text",), ()), "down": (("key",), ()), "up": (("key",), ())}, {}),
    "mouse": ({"click": (("x", "y"), ()), "wheel": (("delta_x", "delta_y"), ())}, {}),
    "response": ({}, {"status": "call", "ok": "call", "url": "call"}),
}
# Options Playwright takes that change nothing here (crawlbox types at once, and never waits after an action), and
# the timeout that Playwright's is_visible and is_hidden ignore too.
_HARMLESS = frozenset(("delay", "no_wait_after", "strict"))
_IGNORED = {"is_visible": ("timeout",), "is_hidden": ("timeout",)}
# Names whose JavaScript spelling keeps an acronym whole.
_SPELLED = {"wait_for_url": "waitForURL", "inner_html": "innerHTML"}


def _camel(name):
    if name in _SPELLED:
        return _SPELLED[name]
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _regex(p):
    flags = ("i" if p.flags & re.IGNORECASE else "") + ("m" if p.flags & re.MULTILINE else "") + ("s" if p.flags & re.DOTALL else "")
    # Python's named groups in JavaScript's spelling.
    source = re.sub(r"\(\?P=(\w+)\)", r"\\k<\1>", p.pattern.replace("(?P<", "(?<"))
    return js.RegExp.new(source, flags)


def _to_js(v):
    """A Python value as the JavaScript call takes it: data as it is (dict keys untouched)."""
    if isinstance(v, _Api):
        return v._js
    if isinstance(v, re.Pattern):
        return _regex(v)
    if isinstance(v, dict):
        o = js.Object.new()
        for k, x in v.items():
            js.Reflect.set(o, str(k), _to_js(x))
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


# Which of the prelude's objects a JavaScript value is (page, locator, …), or None for data: set by _cb_main to the
# page's own record of what it made, so that data read from the page is a dict whatever its keys.
_kind_of = lambda v: None


def _py(v):
    if v is None or v is jsnull:
        return None
    if not isinstance(v, JsProxy):
        return v
    if js.Array.isArray(v):
        return [_py(x) for x in v]
    if v.typeof == "object":
        kind = _kind_of(v)
        if kind:
            return _Api(v, kind)
    return v.to_py()


async def _settle(promise, name):
    try:
        value = await promise
    except JsException as e:
        raise _failed(name, e) from None
    return _py(value)


class _Api:
    """A Playwright-style object (the page, a locator, a response, the keyboard, the mouse) with Python's names."""

    __slots__ = ("_js", "_kind")

    def __init__(self, obj, kind):
        object.__setattr__(self, "_js", obj)
        object.__setattr__(self, "_kind", kind)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        methods, props = _KINDS[self._kind]
        if name in props:
            member = getattr(self._js, _camel(name))
            return _py(member() if props[name] == "call" else member)
        if name not in methods:
            raise AttributeError(f"{self._kind}.{name} is not in crawlbox's page API (docs/interact.md lists it)")
        params, options = methods[name]
        member = getattr(self._js, _camel(name))

        def call(*args, **kwargs):
            if len(args) > len(params):
                raise TypeError(f"{name}() takes {len(params)} positional arguments but {len(args)} were given")
            values = list(args)
            for p in params[len(args):]:
                values.append(kwargs.pop(p) if p in kwargs else None)
            while values and values[-1] is None and len(values) > len(args):
                values.pop()
            given = {k: v for k, v in kwargs.items() if k not in _HARMLESS and k not in _IGNORED.get(name, ())}
            refused = [k for k in given if k not in options]
            if refused:
                accepted = ", ".join(params + options) or "no arguments"
                raise Error(f"{name}: crawlbox does not take {', '.join(refused)} (it takes {accepted})")
            if name in ("get_by_text", "get_by_label", "get_by_placeholder", "get_by_role") and any(isinstance(x, re.Pattern) for x in [*values, *given.values()]):
                raise Error(f"{name}: a regular expression is not taken here; give the text (it matches any case and part of the text unless exact=True)")
            try:
                a = [_to_js(x) for x in values]
                if given:
                    a.append(_to_js({_camel(k): v for k, v in given.items()}))
                r = member(*a)
            except JsException as e:
                raise _failed(name, e) from None
            return _settle(r, name) if inspect.isawaitable(r) else _py(r)

        call.__name__ = name
        return call

    def __setattr__(self, name, value):
        raise AttributeError(f"{name} cannot be set")

    def __repr__(self):
        return f"<crawlbox {self._kind}>"


def _exit(code=0):
    raise SystemExit(code)


# Ending the interpreter itself would leave the page without an outcome: these end the code instead.
import posix

os._exit = posix._exit = _exit
os.abort = posix.abort = lambda: _exit(134)

# Deeper recursion than this overflows the WebAssembly stack and crashes the interpreter (10,000 does; 4,000 runs):
# a higher limit asked for is this one, so deep recursion is Python's RecursionError.
_MAX_RECURSION = 5000
_set_limit = sys.setrecursionlimit


def _setrecursionlimit(limit):
    _set_limit(min(int(limit), _MAX_RECURSION))


sys.setrecursionlimit = _setrecursionlimit


def _async_playwright():
    raise Error("crawlbox gives the code its page as page; it does not start browsers")


# The names scripts import from Playwright (from playwright.async_api import TimeoutError).
_pw = types.ModuleType("playwright")
_pw_async = types.ModuleType("playwright.async_api")
_pw_async.Error = Error
_pw_async.TimeoutError = TimeoutError
_pw_async.async_playwright = _async_playwright
_pw.async_api = _pw_async
sys.modules["playwright"] = _pw
sys.modules["playwright.async_api"] = _pw_async


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass


async def _cb_main(code, page, kind_of):
    global _kind_of
    _kind_of = kind_of
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    scope = {"__name__": "__main__", "__builtins__": __builtins__, "page": _Api(page, "page"), "Error": Error}
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
        _flush()
`;
