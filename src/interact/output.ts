/**
 * @module interact/output
 * What browser code printed and how it ended, for both kinds (bash scripts, interact/shell; JavaScript,
 * interact/sandbox), in the shape of the SDK's `BrowserExecuteResponse`; and the bounded buffer the output is kept in.
 */

/** Characters of stdout (and, apart, of stderr) kept; the rest is cut and `truncated` set. */
export const MAX_OUTPUT_CHARS = 1_000_000;

/** What a script did. */
export interface ScriptOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** What JavaScript code returned, as text (bash code has no value: its stdout stands in). */
  result?: string;
  /** `result` was cut (at the sandbox's 1,000,000 characters; it then ends with ` …(cut)`). */
  resultTruncated?: boolean;
  /**
   * Its time ran out (or its client left): stopped where it was, exit code 124. Or its sandbox page was killed for
   * using more memory than a page may: exit code 137, as for a process the OOM killer ends.
   */
  killed: boolean;
  truncated: boolean;
  /**
   * Set by the runner when a command was still running on the page when the code was stopped; the session
   * (interact/sessions.ts) then asks the page, and leaves it set only when the page did not answer and the session
   * was dropped for it.
   */
  stuck: boolean;
  /** The dropped session's profile was saved (true) or could not be (false); absent when it had none. */
  profileSaved?: boolean;
}

/** A script's stdout and stderr, and the outcome they end in. */
export class ScriptOutput {
  readonly out = new Output();
  readonly err = new Output();

  /** The outcome, with what was printed so far (by default neither killed nor stuck). */
  end(exitCode: number, extra: Partial<ScriptOutcome> = {}): ScriptOutcome {
    return { stdout: this.out.text, stderr: this.err.text, exitCode, killed: false, truncated: this.out.truncated || this.err.truncated, stuck: false, ...extra };
  }
}

/** Output kept up to {@link MAX_OUTPUT_CHARS}. */
export class Output {
  text = "";
  truncated = false;
  /** Appends `s` as it is. */
  write(s: string): void {
    const room = MAX_OUTPUT_CHARS - this.text.length;
    if (s.length > room) this.truncated = true;
    this.text += s.slice(0, Math.max(0, room));
  }
  /** Appends `s` as a line. */
  line(s: string): void {
    this.write(`${s}\n`);
  }
}
