/**
 * The relaxed schema a chunk's answer is checked against (src/llm/relaxed-schema.ts): it accepts nulls and missing
 * fields everywhere, and still refuses wrong types, unknown enum values and forbidden properties. Checked with the
 * validator the answers go through (src/llm/schema.ts).
 */
import { expect, test } from "bun:test";
import { relaxedSchema } from "../../src/llm/relaxed-schema.ts";
import { validateAgainst } from "../../src/llm/schema.ts";

const SCHEMA = {
  $id: "https://example.com/product.json",
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    kind: { enum: ["kettle", "toaster"] },
    tags: { type: "array", items: { type: "string" }, minItems: 1 },
    maker: { $ref: "#/definitions/maker" },
    price: { anyOf: [{ type: "number" }, { type: "string", pattern: "^[0-9]+$" }] },
  },
  required: ["name", "kind", "tags", "maker", "price"],
  additionalProperties: false,
  definitions: { maker: { type: "object", properties: { country: { type: "string" } }, required: ["country"] } },
};

test("nulls and missing fields pass the relaxed copy; the caller's schema is unchanged", () => {
  const relaxed = relaxedSchema(SCHEMA);
  const allNull = { name: null, kind: null, tags: null, maker: null, price: null };
  expect(validateAgainst(relaxed, allNull)).toEqual([]);
  expect(validateAgainst(relaxed, {})).toEqual([]);
  expect(validateAgainst(relaxed, { tags: [], maker: { country: null } })).toEqual([]);
  expect(validateAgainst(SCHEMA, allNull).length).toBeGreaterThan(0);
  expect(SCHEMA.required).toHaveLength(5);
  expect(relaxed.$id).toBeUndefined();
});

test("wrong types, unknown enum values and forbidden properties still fail", () => {
  const relaxed = relaxedSchema(SCHEMA);
  expect(validateAgainst(relaxed, { name: 3 })).not.toEqual([]);
  expect(validateAgainst(relaxed, { kind: "blender" })).not.toEqual([]);
  expect(validateAgainst(relaxed, { colour: "red" })).not.toEqual([]);
  expect(validateAgainst(relaxed, { maker: { country: 7 } })).not.toEqual([]);
  expect(validateAgainst(relaxed, { price: "cheap" })).not.toEqual([]);
});

test("a root $ref with its definitions beside it (zod-to-json-schema with a name) still resolves in the relaxed copy", () => {
  for (const schema of [
    { $ref: "#/definitions/Product", definitions: { Product: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } },
    { anyOf: [{ $ref: "#/$defs/P" }], $defs: { P: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } },
  ]) {
    const relaxed = relaxedSchema(schema);
    expect(validateAgainst(relaxed, { name: "Kettle", price: 25 })).toEqual([]);
    expect(validateAgainst(relaxed, { name: null })).toEqual([]);
    expect(validateAgainst(relaxed, { name: 3 })).not.toEqual([]);
  }
});

test("a typed const (zod's z.literal) accepts null in the relaxed copy, and still refuses another value", () => {
  const schema = { type: "object", properties: { kind: { type: "string", const: "product" }, name: { type: "string" } }, required: ["kind"] };
  const relaxed = relaxedSchema(schema);
  expect(validateAgainst(relaxed, { kind: null, name: "Kettle" })).toEqual([]);
  expect(validateAgainst(relaxed, { kind: "product" })).toEqual([]);
  expect(validateAgainst(relaxed, { kind: "service" })).not.toEqual([]);
});
