/**
 * Builds fast-check arbitraries from JSON Schema (the OpenAPI document crawlbox serves), so the fuzz test
 * follows the real request models instead of a hand-kept copy. Covers the keywords our TypeBox models emit:
 * type, properties/required/additionalProperties, items, anyOf/oneOf, enum/const, min/max bounds.
 */
import fc from "fast-check";

type Schema = Record<string, any>;

const MAX_DEPTH = 5;

/** An arbitrary that produces values valid (mostly) for `schema`. */
export function arbitraryFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((s: Schema) => arbitraryFor(s, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "uri" || /url/i.test(schema.description ?? "")) {
        return fc.constantFrom("http://example.com", "https://example.org/a?b=1", "example.net/path", "http://127.0.0.1:1/x", "ftp://x.y");
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    case "integer":
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1_000_000, 1_000_000) });
    case "number":
      return fc.double({ min: schema.minimum ?? -10, max: schema.maximum ?? 1_000_000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(arbitraryFor(schema.items ?? {}, depth + 1), { maxLength: 3 });
    case "object": {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      if (Object.keys(props).length === 0) {
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 });
      }
      // Required keys plus a few optional ones: with every optional key present half the time, almost every body
      // would trip some refinement and the fuzz would never get past validation.
      const requiredKeys = required.filter((k) => k in props);
      const optionalKeys = Object.keys(props).filter((k) => !requiredKeys.includes(k));
      return fc.subarray(optionalKeys, { maxLength: Math.min(3, optionalKeys.length) }).chain((chosen) => {
        const entries: Record<string, fc.Arbitrary<unknown>> = {};
        for (const k of [...requiredKeys, ...chosen]) entries[k] = arbitraryFor(props[k]!, depth + 1);
        return fc.record(entries);
      });
    }
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

/** Mutations that turn a plausible body into hostile input. */
export function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const hostileValue = fc.oneof(
    fc.anything({ maxDepth: 3 }),
    fc.string({ minLength: 5000, maxLength: 20000 }),
    fc.constant("\u0000\ud800broken"),
    fc.constant({ __proto__: { polluted: true } }),
    fc.array(fc.integer(), { minLength: 200, maxLength: 400 }),
    fc.constant(Number.MAX_SAFE_INTEGER),
    fc.constant(-1),
    fc.constantFrom("javascript:alert(1)", "file:///etc/passwd", "http://[::1]/", "http://0x7f000001/", "http://169.254.169.254/latest"),
  );
  const deep = fc.integer({ min: 50, max: 400 }).map((n) => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = { a: v };
    return v;
  });
  return fc.oneof(
    // replace or add a key with a hostile value
    fc.tuple(base, fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "prototype", "url", "formats", "timeout")), hostileValue).map(([b, k, v]) =>
      b && typeof b === "object" && !Array.isArray(b) ? JSON.parse(JSON.stringify({ ...(b as object), [k]: v })) : v,
    ),
    // the body is not an object at all
    fc.oneof(fc.anything({ maxDepth: 2 }), deep, fc.array(base, { maxLength: 2 })),
    // drop a random key
    fc.tuple(base, fc.nat()).map(([b, i]) => {
      if (!b || typeof b !== "object" || Array.isArray(b)) return b;
      const keys = Object.keys(b);
      if (keys.length === 0) return b;
      const copy: Record<string, unknown> = { ...(b as object) };
      delete copy[keys[i % keys.length]!];
      return copy;
    }),
  );
}
