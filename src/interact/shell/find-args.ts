/**
 * @module interact/shell/find-args
 * `agent-browser find`'s arguments, in a module of their own: its usage errors (find.ts) and the help's command table
 * (agent-browser.ts) both read them when they load, and those two import each other.
 */

/** `find`'s arguments, as its usage errors and `agent-browser --help` show them. */
export const FIND_ARGS = "role|text|label|placeholder|testid|first|last|nth <what> click|dblclick|hover|focus|fill|type|check|uncheck|text [value] [--name NAME] [--exact] [--timeout MS]";
