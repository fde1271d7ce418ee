/**
 * `agent-browser --help` (`-h`, `help`) in bash code (src/interact/shell/agent-browser.ts) prints the command
 * reference with exit code 0, as firecrawl-mcp's tool description tells the model to run it: every command the
 * dispatcher carries out is listed, with its arguments, from the same table. It touches no page (the context here
 * has none); an unknown command still fails with exit code 2 and points at the help.
 */
import { describe, expect, test } from "bun:test";
import * as agentBrowser from "../../src/interact/shell/agent-browser.ts";
import { runScript } from "../../src/interact/shell/run.ts";

/** No page: the help must not need one. */
const noPage = {} as agentBrowser.ShellContext;
/** Read through the module, so that code without the table fails each test rather than the file's import. */
const commands = () => agentBrowser.COMMANDS;
const run = (code: string) => runScript(noPage, code, new AbortController().signal);

describe("agent-browser --help", () => {
  test("--help, -h and help print the command reference with exit code 0", async () => {
    const long = await run("agent-browser --help");
    expect(long).toMatchObject({ exitCode: 0, stderr: "" });
    expect(long.stdout).toStartWith("usage: agent-browser <command> [args] [--json]\n");
    for (const form of ["agent-browser -h", "agent-browser help"]) expect((await run(form)).stdout).toBe(long.stdout);
    // Each command and each of its other names, with its arguments.
    expect(long.stdout).toContain("\n  open <url>\n");
    expect(long.stdout).toContain("(also: goto, navigate)");
    expect(long.stdout).toContain("\n  snapshot [-i] [-c] [-d <depth>] [-s <selector>]\n");
    expect(long.stdout).toContain("\n  click <@ref|selector>\n");
    expect(long.stdout).toContain("\n  get title|url|text|html|value|attr|count|box [@ref|selector] [name]\n");
    expect(long.stdout).toContain("\n  find role|text|label|placeholder|testid|first|last|nth <what> ");
    for (const c of commands()) {
      expect(long.stdout).toContain(`\n  ${[c.names[0], c.args].filter(Boolean).join(" ")}\n      ${c.does}`);
      for (const other of c.names.slice(1)) expect(long.stdout).toContain(other);
    }
    // Chained as any command is, and under --json as data.
    expect((await run("agent-browser help && echo after")).stdout).toEndWith("\nafter\n");
    const json = JSON.parse((await run("agent-browser --help --json")).stdout);
    expect(json).toEqual({ success: true, data: long.stdout.slice(0, -1) });
  });

  test("the table holds every command bash scripts use, and nothing twice", () => {
    const names = commands().flatMap((c) => c.names);
    expect(new Set(names).size).toBe(names.length);
    for (const n of ["open", "goto", "navigate", "back", "forward", "reload", "snapshot", "click", "dblclick", "hover", "focus", "fill", "type", "clear", "press", "key", "keydown", "keyup", "check", "uncheck", "select", "find", "set", "cookies", "scroll", "scrollintoview", "scrollinto", "wait", "get", "is", "eval", "screenshot", "close", "help", "--help", "-h"]) {
      expect(names).toContain(n);
    }
  });

  test("an unknown command (or none) is exit code 2 and points at the help", async () => {
    expect(await run("agent-browser frobnicate")).toMatchObject({ exitCode: 2, stdout: "", stderr: "✗ unknown command: frobnicate (agent-browser --help lists the commands)\n" });
    expect(await run("agent-browser")).toMatchObject({ exitCode: 2, stderr: "✗ usage: agent-browser <command> [args] (agent-browser --help lists the commands)\n" });
    expect((await run("agent-browser constructor")).exitCode).toBe(2);
  });
});
