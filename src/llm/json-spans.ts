/**
 * @module llm/json-spans
 * Where a JSON value may sit in a model's answer that has prose around it. Taking everything from the first `{` or
 * `[` to the last `}` or `]` failed as soon as the prose held a bracket of its own: `{"a":1}\nI hope this helps {if}`
 * and `Here is the JSON: {…} (from [the page])` were read as invalid, and cost a repair turn (a second model call).
 * The spans here are balanced: from an opening bracket to the one that closes it, brackets inside JSON strings (and
 * escaped quotes) not counted; llm/schema.ts `parseJsonAnswer` tries them after its older candidates.
 */

/**
 * Spans yielded at most: each is parsed (and maybe validated) by the caller, so prose full of brackets (`[1] [2] …`)
 * must not make that thousands of times. The scan itself reads each character of the answer once.
 */
const MAX_SPANS = 64;

/**
 * The index of the bracket closing the one at `start`, or -1 when it is never closed or a bracket of the other kind
 * closes it first. The span is read as JSON: each `"` outside a string opens one, and a `\` in a string escapes the
 * next character.
 */
function closingIndex(text: string, start: number): number {
  const expected: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      expected.push(c === "{" ? "}" : "]");
    } else if (c === "}" || c === "]") {
      if (expected.pop() !== c) return -1;
      if (expected.length === 0) return i;
    }
  }
  return -1;
}

/**
 * The balanced `{…}` and `[…]` spans of `text` that no other holds, in order (at most {@link MAX_SPANS}), for the
 * caller to take the first that parses. A span that does not parse (`{if}`) does not stop the search: the next one
 * after it is tried. What a span holds is never a candidate of its own, nor is anything after a bracket never
 * closed: in a JSON answer with a stray comma, or one cut off at the token limit, a nested object
 * (`{"country": "DE"}` of `{"maker": {"country": "DE"},}`) would parse and pass for the whole answer.
 * @example
 * [...balancedJsonSpans('{"a":1}\nI hope this helps {if}')]; // ['{"a":1}', "{if}"]
 */
export function* balancedJsonSpans(text: string): Generator<string> {
  const opening = /[{[]/g;
  for (let tried = 0; tried < MAX_SPANS; tried++) {
    const found = opening.exec(text);
    if (!found) return;
    const end = closingIndex(text, found.index);
    if (end < 0) return;
    yield text.slice(found.index, end + 1);
    opening.lastIndex = end + 1;
  }
}
