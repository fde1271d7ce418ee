/**
 * @module interact/shell/tokenize
 * The shell grammar of browser `code` in `language: "bash"` (docs/interact.md): commands made of words, quoted as in
 * bash ('single', "double" with `\"` `\\` `\$` escapes, backslash outside quotes), separated by newlines, `;`, `&&`
 * and `||`, with `#` comments and backslash-newline continuations. crawlbox does not hand the code to a shell: it
 * carries out each command itself (interact/shell/run.ts), so whatever a real shell would do beyond running a
 * command (pipes, redirections, variables and assignments, substitutions, background jobs, `if`/`for`/`while` and
 * the other compound commands) is refused here with a syntax error that names it, before anything runs, instead of
 * being read as something else (an `if` read as a command "not found" would skip its body without a word).
 */

/** How a command is joined to the one after it. */
export type Joiner = ";" | "&&" | "||";

/** One command of the script: its words, and how the next command depends on it. */
export interface Statement {
  argv: string[];
  /** `&&`: the next runs only when this one succeeded; `||`: only when it failed; `;`: always. */
  next: Joiner;
  /** 1-based line the command starts on (for messages). */
  line: number;
}

/** The script cannot be read; `message` says where and why, in bash's manner. */
export class ShellSyntaxError extends Error {}

const UNSUPPORTED: Record<string, string> = {
  "|": "pipes",
  ">": "redirections",
  "<": "redirections",
  "&": "background jobs",
  "`": "command substitution",
  "(": "subshells",
  ")": "subshells",
};

/** bash's reserved words: where a command starts, they open a compound command crawlbox does not run. */
const RESERVED = new Set(["!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select", "then", "time", "until", "while", "{", "}", "[[", "]]"]);

/** Splits `code` into statements. Throws {@link ShellSyntaxError}. */
export function tokenize(code: string): Statement[] {
  const out: Statement[] = [];
  let argv: string[] = [];
  let word: string | undefined;
  /** Whether the statement's first word had quotes or escapes in it (then it is a plain word, as in bash). */
  let firstQuoted = false;
  let quotedWord = false;
  let line = 1;
  let startLine = 1;
  const fail = (what: string): never => {
    throw new ShellSyntaxError(`line ${line}: ${what} are not supported: crawlbox runs agent-browser commands, one after another (see docs/interact.md)`);
  };
  const endWord = () => {
    if (word !== undefined) {
      if (argv.length === 0) firstQuoted = quotedWord;
      argv.push(word);
    }
    word = undefined;
    quotedWord = false;
  };
  /** Ends the statement at `token` (a newline, or the joiner that follows it). */
  const endStatement = (next: Joiner, token: Joiner | "\n" = next) => {
    endWord();
    if (argv.length === 0) {
      if (token !== "\n") throw new ShellSyntaxError(`line ${line}: syntax error near unexpected token \`${token}'`);
      return;
    }
    const first = argv[0]!;
    if (!firstQuoted && RESERVED.has(first)) {
      throw new ShellSyntaxError(`line ${startLine}: \`${first}': bash's compound commands (if, for, while, case, { }, functions) are not supported: crawlbox runs agent-browser commands, one after another, chained with &&, || and ; (see docs/interact.md)`);
    }
    if (!firstQuoted && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(first)) fail("variable assignments");
    out.push({ argv, next, line: startLine });
    argv = [];
  };
  /** A `$` that bash would expand. */
  const expands = (i: number) => /^[A-Za-z_{(?!#@*0-9$'-]/.test(code[i + 1] ?? "");
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (argv.length === 0 && word === undefined) startLine = line;
    if (c === "\n") {
      endStatement(";", "\n");
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      endWord();
      i++;
    } else if (c === "#" && word === undefined) {
      while (i < code.length && code[i] !== "\n") i++;
    } else if (c === ";") {
      endStatement(";");
      i++;
    } else if (c === "&" && code[i + 1] === "&") {
      endStatement("&&");
      i += 2;
    } else if (c === "|" && code[i + 1] === "|") {
      endStatement("||");
      i += 2;
    } else if (c === "\\") {
      if (code[i + 1] === "\n") line++;
      else if (i + 1 < code.length) {
        word = (word ?? "") + code[i + 1];
        quotedWord = true;
      }
      i += 2;
    } else if (c === "'") {
      const end = code.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError(`line ${line}: unexpected end of script while looking for the matching \`''`);
      const quoted = code.slice(i + 1, end);
      line += quoted.split("\n").length - 1;
      word = (word ?? "") + quoted;
      quotedWord = true;
      i = end + 1;
    } else if (c === '"') {
      let s = "";
      i++;
      for (;;) {
        if (i >= code.length) throw new ShellSyntaxError(`line ${line}: unexpected end of script while looking for the matching \`"'`);
        const d = code[i]!;
        if (d === '"') break;
        if (d === "\\" && /["\\$`\n]/.test(code[i + 1] ?? "")) {
          if (code[i + 1] !== "\n") s += code[i + 1];
          else line++;
          i += 2;
          continue;
        }
        if (d === "$" && expands(i)) fail("variables and substitutions");
        if (d === "`") fail("command substitution");
        if (d === "\n") line++;
        s += d;
        i++;
      }
      word = (word ?? "") + s;
      quotedWord = true;
      i++;
    } else if (c === "$" && (expands(i) || code[i + 1] === '"')) {
      fail("variables and substitutions");
    } else if (UNSUPPORTED[c]) {
      fail(UNSUPPORTED[c]);
    } else {
      word = (word ?? "") + c;
      i++;
    }
  }
  endStatement(";", "\n");
  if (out.length > 0 && out[out.length - 1]!.next !== ";") throw new ShellSyntaxError(`line ${line}: unexpected end of script after \`${out[out.length - 1]!.next}'`);
  return out;
}
