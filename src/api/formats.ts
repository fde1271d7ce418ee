/**
 * @module api/formats
 * The `formats` entries of scrape options (api-v2.md §2.2 "Formats"). Clients send either a bare string
 * (`"markdown"`) or an object (`{type:"screenshot", fullPage:true}`); both are accepted and
 * {@link normalizeFormats} turns everything into objects, so the service layer matches on one typed union.
 * Every object is strict: a misspelt option inside a format is an error, as upstream.
 */
import { t } from "elysia";
import type { Static, TLiteral, TObject } from "@sinclair/typebox";
import { strictObject, oneOf, JsonSchemaField, PromptField, Int } from "./common.ts";

/** Format types that take no options. */
export const SIMPLE_FORMAT_TYPES = [
  "markdown", "html", "rawHtml", "links", "images", "summary",
  "branding", "product", "menu", "audio", "video", "rawBase64",
] as const;

/** Format types whose object form has only optional fields, so the bare string is accepted too. */
export const STRING_FORMAT_TYPES = [...SIMPLE_FORMAT_TYPES, "screenshot", "changeTracking", "json", "deterministicJson"] as const;

/** Every format type. */
export const FORMAT_TYPES = [...STRING_FORMAT_TYPES, "attributes", "question", "highlights", "query"] as const;
export type FormatType = (typeof FORMAT_TYPES)[number];

/** Largest screenshot viewport (8K). */
export const MAX_VIEWPORT_WIDTH = 7680;
export const MAX_VIEWPORT_HEIGHT = 4320;

/** Screenshot viewport, shared with the screenshot action. */
export const ViewportSchema = strictObject({
  width: Int({ minimum: 1, maximum: MAX_VIEWPORT_WIDTH }),
  height: Int({ minimum: 1, maximum: MAX_VIEWPORT_HEIGHT }),
});

/** Screenshot JPEG quality, 1..100. */
export const QualityField = Int({ minimum: 1, maximum: 100 });

function simple<T extends string>(type: T): TObject<{ type: TLiteral<T> }> {
  return strictObject({ type: t.Literal(type) });
}

/**
 * A format's `schema`: null is accepted as absent, as upstream's `z.any().optional()` accepts it; the Python SDK sends
 * `"schema": null` for a `JsonFormat` given only a prompt.
 */
const NullableSchema = t.Optional(t.Union([JsonSchemaField, t.Null()]));

const JsonLikeProps = {
  schema: NullableSchema,
  prompt: t.Optional(PromptField),
  checkPromptInjection: t.Optional(t.Boolean()),
};

export const JsonFormatSchema = strictObject({ type: t.Literal("json"), ...JsonLikeProps });
/** [LATEST] deterministic JSON extraction; same options as `json`. */
export const DeterministicJsonFormatSchema = strictObject({ type: t.Literal("deterministicJson"), ...JsonLikeProps });
export const ChangeTrackingFormatSchema = strictObject({
  type: t.Literal("changeTracking"),
  prompt: t.Optional(t.String()),
  schema: NullableSchema,
  modes: t.Optional(t.Array(oneOf(["json", "git-diff"]), { default: [] })),
  tag: t.Optional(t.Union([t.String(), t.Null()], { default: null })),
});
export const ScreenshotFormatSchema = strictObject({
  type: t.Literal("screenshot"),
  fullPage: t.Optional(t.Boolean({ default: false })),
  quality: t.Optional(QualityField),
  viewport: t.Optional(ViewportSchema),
});
export const AttributesFormatSchema = strictObject({
  type: t.Literal("attributes"),
  selectors: t.Array(strictObject({ selector: t.String(), attribute: t.String() })),
});
export const QuestionFormatSchema = strictObject({ type: t.Literal("question"), question: t.String({ minLength: 1 }) });
export const HighlightsFormatSchema = strictObject({ type: t.Literal("highlights"), query: t.String({ minLength: 1 }) });
/** @deprecated upstream in favour of question/highlights; still accepted. */
export const QueryFormatSchema = strictObject({
  type: t.Literal("query"),
  prompt: t.String({ minLength: 1 }),
  mode: t.Optional(oneOf(["freeform", "directQuote"])),
});

const SimpleFormatSchemas = SIMPLE_FORMAT_TYPES.map(simple);

/** All format objects, by type. */
export const FORMAT_OBJECT_SCHEMAS = [
  ...SimpleFormatSchemas,
  JsonFormatSchema,
  DeterministicJsonFormatSchema,
  ChangeTrackingFormatSchema,
  ScreenshotFormatSchema,
  AttributesFormatSchema,
  QuestionFormatSchema,
  HighlightsFormatSchema,
  QueryFormatSchema,
] as const;

/** A format as a client may send it: a string or an object. */
export const FormatInputSchema = t.Union([oneOf(STRING_FORMAT_TYPES), ...FORMAT_OBJECT_SCHEMAS]);

/** Default `formats` of scrape options. */
export const DEFAULT_FORMATS = [{ type: "markdown" }] as const;

/**
 * The `formats` array. `allowed` restricts the types (search's scrape options accept only some), and
 * `defaultFormats` differs per endpoint (search: `[]`).
 */
export function formatsField(opts: { allowed?: readonly FormatType[]; defaultFormats?: readonly unknown[] } = {}) {
  const allowed = opts.allowed;
  const schema = allowed
    ? t.Union([
        oneOf(STRING_FORMAT_TYPES.filter((f) => allowed.includes(f)) as unknown as [string, ...string[]]),
        ...FORMAT_OBJECT_SCHEMAS.filter((s) => allowed.includes(s.properties.type.const as FormatType)),
      ])
    : FormatInputSchema;
  // Typed as the full input union: a restricted list is a subset, and normalisation handles every member.
  return t.Array(schema as typeof FormatInputSchema, { default: [...(opts.defaultFormats ?? DEFAULT_FORMATS)].map((f) => structuredClone(f)) });
}

type Obj<S> = S extends TObject ? Static<S> : never;
/** A simple, option-less format object. */
export type SimpleFormat = { [K in (typeof SIMPLE_FORMAT_TYPES)[number]]: { type: K } }[(typeof SIMPLE_FORMAT_TYPES)[number]];
export type JsonFormat = Static<typeof JsonFormatSchema>;
export type DeterministicJsonFormat = Static<typeof DeterministicJsonFormatSchema>;
/** changeTracking after defaults (`modes` and `tag` always present). */
export type ChangeTrackingFormat = Obj<typeof ChangeTrackingFormatSchema> & { modes: ("json" | "git-diff")[]; tag: string | null };
/** screenshot after defaults (`fullPage` always present). */
export type ScreenshotFormat = Obj<typeof ScreenshotFormatSchema> & { fullPage: boolean };
export type AttributesFormat = Static<typeof AttributesFormatSchema>;
export type QuestionFormat = Static<typeof QuestionFormatSchema>;
export type HighlightsFormat = Static<typeof HighlightsFormatSchema>;
export type QueryFormat = Static<typeof QueryFormatSchema>;

/** A normalised format: always an object, defaults applied. Discriminate on `type`. */
export type Format =
  | SimpleFormat
  | JsonFormat
  | DeterministicJsonFormat
  | ChangeTrackingFormat
  | ScreenshotFormat
  | AttributesFormat
  | QuestionFormat
  | HighlightsFormat
  | QueryFormat;

/** What a client may put in `formats` (before normalisation). */
export type FormatInput = Static<typeof FormatInputSchema>;

/** Turns string formats into `{type}` objects and fills option defaults (screenshot `fullPage`, changeTracking `modes`/`tag`). */
export function normalizeFormats(formats: readonly FormatInput[]): Format[] {
  return formats.map((f) => {
    const o = (typeof f === "string" ? { type: f } : { ...f }) as Record<string, unknown> & { type: FormatType };
    if (o["schema"] === null) delete o["schema"];
    if (o.type === "screenshot") o["fullPage"] ??= false;
    if (o.type === "changeTracking") {
      o["modes"] ??= [];
      if (o["tag"] === undefined) o["tag"] = null;
    }
    return o as Format;
  });
}

/** Finds the first format of a type in a normalised list, typed. */
export function findFormat<T extends Format["type"]>(formats: readonly Format[], type: T): Extract<Format, { type: T }> | undefined {
  return formats.find((f) => f.type === type) as Extract<Format, { type: T }> | undefined;
}
