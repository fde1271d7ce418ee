/**
 * The renaming of an `askLlm` schema's properties that redact alike (llm/deterministic/ask-schema.ts `redactAsk`),
 * with the real pattern redaction: every name kept apart (`<EMAIL>`, `<EMAIL> (2)`, …) in a number of set lookups
 * linear in the properties. The search for a free suffix restarted at ` (2)` for every name: 1,003 names took 504,513
 * lookups (46-104 ms a call, up to 20 calls a run). Work is counted, not timed: every `Set.prototype.has` made while
 * the schema is rebuilt (the redaction itself, which the counting leaves out, is redact/'s).
 */
import { expect, test } from "bun:test";
import { redactAsk } from "../../src/llm/deterministic/ask-schema.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

const fast = piiOptions({ mode: "fast" })!;

test("1,003 property names that redact alike are kept apart in a linear number of lookups", async () => {
  const names = Array.from({ length: 1_003 }, (_, i) => `${i}@x.io`);
  const schema = { type: "object", properties: Object.fromEntries(names.map((n) => [n, {}])), required: [names[1]!, names[1_002]!] };
  expect(JSON.stringify(schema).length).toBeLessThan(16_000); // within ASK_SCHEMA_MAX_CHARS
  const has = Set.prototype.has;
  let counting = true;
  let lookups = 0;
  Set.prototype.has = function (this: Set<unknown>, v: unknown) {
    if (counting) lookups++;
    return has.call(this, v);
  };
  try {
    const out = await redactAsk("Describe each", schema, async (values) => {
      counting = false;
      try {
        return (await redactJsonStrings(values, (t) => patternRedactor.redact(t, fast, { deadline: Date.now() + 60_000 }))) as unknown[];
      } finally {
        counting = true;
      }
    });
    const props = Object.keys(out.schema!.properties as object);
    expect(props).toHaveLength(1_003);
    expect(props.slice(0, 3)).toEqual(["<EMAIL>", "<EMAIL> (2)", "<EMAIL> (3)"]);
    expect(props[1_002]).toBe("<EMAIL> (1003)");
    expect(out.schema!.required).toEqual(["<EMAIL> (2)", "<EMAIL> (1003)"]);
  } finally {
    Set.prototype.has = has;
  }
  console.log(`renaming 1,003 properties redacted alike: ${lookups} set lookups`);
  expect(lookups).toBeLessThanOrEqual(3 * 1_003);
});

test("a name that is already a suffixed one is not taken twice", async () => {
  const schema = { type: "object", properties: { "a@x.io": {}, "<EMAIL> (2)": {}, "b@x.io": {}, "c@x.io": {} } };
  const out = await redactAsk("x", schema, async (values) => (await redactJsonStrings(values, (t) => patternRedactor.redact(t, fast, { deadline: Date.now() + 60_000 }))) as unknown[]);
  expect(Object.keys(out.schema!.properties as object)).toEqual(["<EMAIL>", "<EMAIL> (2)", "<EMAIL> (3)", "<EMAIL> (4)"]);
});
