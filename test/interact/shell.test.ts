/**
 * The bash grammar of browser code (src/interact/shell/tokenize.ts) and the runner's own commands
 * (src/interact/shell/run.ts): bash's quoting, comments, continuations and chaining read as bash reads them;
 * everything a real shell would do beyond running a command refused by name; the builtins, `set -e`, exit
 * statuses, output limits and the time limit. (agent-browser commands run on real Chromium in browser.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import type { ShellContext } from "../../src/interact/shell/agent-browser.ts";
import { MAX_OUTPUT_CHARS } from "../../src/interact/output.ts";
import { MAX_COMMANDS, runScript } from "../../src/interact/shell/run.ts";
import { ShellSyntaxError, tokenize } from "../../src/interact/shell/tokenize.ts";

const words = (code: string) => tokenize(code).map((s) => s.argv);
/** Scripts here call no agent-browser command, so they never reach the context. */
const noPage = {} as ShellContext;
const run = (code: string, signal = new AbortController().signal) => runScript(noPage, code, signal);

describe("tokenize", () => {
  test("quoting, escapes, comments and continuations as in bash", () => {
    expect(words(`agent-browser fill @e1 "a \\"quoted\\" \\$5 \\\\ word"`)).toEqual([["agent-browser", "fill", "@e1", 'a "quoted" $5 \\ word']]);
    expect(words(`echo 'single $HOME "kept"' mixed'x'"y"z`)).toEqual([["echo", 'single $HOME "kept"', "mixedxyz"]]);
    expect(words("echo a\\ b c # a comment\n# whole line\necho d#not-a-comment")).toEqual([["echo", "a b", "c"], ["echo", "d#not-a-comment"]]);
    expect(words("agent-browser \\\n  open x.com")).toEqual([["agent-browser", "open", "x.com"]]);
    expect(words("echo 'two\nlines'; echo next")).toEqual([["echo", "two\nlines"], ["echo", "next"]]);
    expect(words("echo 5$ a$")).toEqual([["echo", "5$", "a$"]]);
    expect(words("echo ''")).toEqual([["echo", ""]]);
  });

  test("chaining: newlines, ;, && and || (a line may end in && and go on on the next)", () => {
    expect(tokenize("a; b && c || d\ne &&\nf").map((s) => [s.argv[0], s.next, s.line])).toEqual([
      ["a", ";", 1],
      ["b", "&&", 1],
      ["c", "||", 1],
      ["d", ";", 1],
      ["e", "&&", 2],
      ["f", ";", 3],
    ]);
  });

  test("what a shell would do beyond running commands is a syntax error that names it", () => {
    const cases: Record<string, RegExp> = {
      "echo a | cat": /pipes/,
      "echo a > f": /redirections/,
      "cat < f": /redirections/,
      "sleep 1 &": /background jobs/,
      "echo `id`": /command substitution/,
      "echo $(id)": /variables and substitutions/,
      "echo $HOME": /variables and substitutions/,
      'echo "${HOME}"': /variables and substitutions/,
      "(echo a)": /subshells/,
      "echo 'open": /matching `'/,
      'echo "open': /matching `"/,
      "&& echo a": /unexpected token `&&'/,
      "echo a ||": /unexpected end of script/,
    };
    for (const [code, message] of Object.entries(cases)) {
      let thrown: unknown;
      try {
        tokenize(code);
      } catch (e) {
        thrown = e;
      }
      // The script beside the verdict, so that a failure names it.
      expect([code, thrown instanceof ShellSyntaxError && message.test(thrown.message)]).toEqual([code, true]);
    }
    expect(() => tokenize("a\nb\necho $x")).toThrow(ShellSyntaxError);
    expect(() => tokenize("a\nb\necho $x")).toThrow(/^line 3: /);
  });
});

describe("runScript without a page", () => {
  test("builtins, && / || by exit status, the last status is the script's", async () => {
    expect(await run("echo a b; echo -n c; echo d")).toMatchObject({ stdout: "a b\ncd\n", stderr: "", exitCode: 0 });
    expect((await run("false || echo rescued && echo chained; false")).stdout).toBe("rescued\nchained\n");
    expect((await run("false || echo rescued && echo chained; false")).exitCode).toBe(1);
    expect((await run("true && false || echo x")).stdout).toBe("x\n");
    expect((await run("false && echo never")).stdout).toBe("");
    expect(await run("ls -la")).toMatchObject({ exitCode: 127, stderr: expect.stringContaining("ls: command not found") });
    expect((await run("exit 300")).exitCode).toBe(44);
    expect((await run("false; exit")).exitCode).toBe(1);
    expect(await run("sleep abc")).toMatchObject({ exitCode: 1, stderr: "bash: sleep: invalid time interval\n" });
  });

  test("set -e stops at a failure not handled by && or ||; set +e and unknown options", async () => {
    expect(await run("set -euo pipefail\nfalse || echo handled\nfalse\necho never")).toMatchObject({ stdout: "handled\n", exitCode: 1 });
    expect((await run("set -e\nfalse && echo x\necho goes on")).stdout).toBe("goes on\n");
    expect((await run("set -e; set +e; false; echo goes on")).stdout).toBe("goes on\n");
    expect(await run("set -z")).toMatchObject({ exitCode: 2, stderr: "bash: set: -z: invalid option\n" });
  });

  test("syntax errors run nothing; too many commands run nothing", async () => {
    expect(await run("echo first\necho $HOME")).toMatchObject({ stdout: "", exitCode: 2, stderr: expect.stringMatching(/^bash: line 2: variables and substitutions are not supported/) });
    const long = Array.from({ length: MAX_COMMANDS + 1 }, () => "true").join("\n");
    expect(await run(long)).toMatchObject({ stdout: "", exitCode: 2, stderr: expect.stringContaining(`at most ${MAX_COMMANDS}`) });
  });

  test("output is cut at the limit and marked truncated", async () => {
    const big = "x".repeat(200_000);
    const r = await run(Array.from({ length: 6 }, () => `echo ${big}`).join("\n"));
    expect(r.stdout.length).toBe(MAX_OUTPUT_CHARS);
    expect(r.truncated).toBe(true);
    expect((await run("echo small")).truncated).toBe(false);
  });

  test("the time limit stops a sleep where it is: killed, exit 124, output so far kept", async () => {
    const t0 = performance.now();
    const r = await run("echo before; sleep 20; echo after", AbortSignal.timeout(200));
    expect(r).toMatchObject({ stdout: "before\n", exitCode: 124, killed: true, stuck: false });
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

describe("bash's grammar beyond commands (review of the first version)", () => {
  test("compound commands, assignments and stray separators are syntax errors before anything runs", async () => {
    for (const code of ["if true; then echo yes; fi", "for x in a b; do echo $x; done", "while false; do :; done", "{ echo a; }", "! false", "FOO=1 echo a", "X=2", "; echo a", "echo a && ; echo b", "echo a;; echo b", "case a in a) echo;; esac", 'echo $"hi"']) {
      const r = await run(`echo before\n${code}`);
      expect([code, r.exitCode, r.stdout]).toEqual([code, 2, ""]);
    }
    // Quoted, a reserved word is a plain word (a command not found), as in bash; after a command, it is an argument.
    expect((await run("'if' x")).exitCode).toBe(127);
    expect((await run("echo if then fi; echo a=b")).stdout).toBe("if then fi\na=b\n");
    expect((await run('echo "5$ and $"')).stdout).toBe("5$ and $\n");
  });

  test("exit needs a number; echo -e reads escapes; a long sleep is capped and stops with its script", async () => {
    expect(await run("exit ''")).toMatchObject({ exitCode: 2, stderr: "bash: exit: : numeric argument required\n" });
    expect(await run("exit abc")).toMatchObject({ exitCode: 2 });
    expect((await run("echo -e 'a\\tb\\\\n'; echo -ne 'c\\n'; echo -E 'd\\n'")).stdout).toBe("a\tb\\n\nc\nd\\n\n");
    const t0 = performance.now();
    expect(await run("sleep 2147484", AbortSignal.timeout(200))).toMatchObject({ killed: true, exitCode: 124 });
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
