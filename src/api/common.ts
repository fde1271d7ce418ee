/**
 * @module api/common
 * Building blocks shared by the /v2 request models: the strict-object helper, URL and header fields,
 * `location`, JSON Schema payloads, the `origin`/`integration` pair every SDK POST carries, and the [LATEST]
 * cloud-only option objects that are accepted (so SDK calls do not fail) but have no effect here.
 */
import { t } from "elysia";
import { Type, type IntegerOptions, type TInteger } from "@sinclair/typebox";
import type { TProperties, ObjectOptions, TObject, TLiteral, TUnion, SchemaOptions } from "@sinclair/typebox";

/**
 * A strict object (`additionalProperties: false`), the TypeBox counterpart of zod's `.strict()`. Every /v2
 * body and nested option object uses it, so unknown keys are reported instead of silently dropped.
 */
export function strictObject<P extends TProperties>(properties: P, options: ObjectOptions = {}): TObject<P> {
  return t.Object(properties, { ...options, additionalProperties: false });
}

/**
 * A JSON integer. Elysia's `t.Integer` is a `numeric-string | integer` union that silently accepts `"7"`
 * (and exports oddly to OpenAPI); upstream's zod rejects strings, so the models use TypeBox's own Integer.
 */
export function Int(options: IntegerOptions = {}): TInteger {
  return Type.Integer(options);
}

type Literals<V extends readonly string[]> = { -readonly [K in keyof V]: TLiteral<V[K]> };

/** A closed set of strings, as `t.Union` of literals (portable: no custom TypeBox kind, plain `anyOf` in OpenAPI). */
export function oneOf<const V extends readonly [string, ...string[]]>(values: V, options: SchemaOptions = {}): TUnion<Literals<V>> {
  return t.Union(values.map((v) => t.Literal(v)), options) as unknown as TUnion<Literals<V>>;
}

/**
 * A URL field. Only `string` in the schema: the §2.1 rules (prepend `http://`, TLD, protocol) are applied by
 * `normalizeUrlField` after the shape check, because they rewrite the value and because lenient batch/extract
 * bodies must report bad URLs individually instead of failing the whole body.
 */
export const UrlField = t.String({ description: "http(s) URL; `http://` is prepended when no scheme is given", examples: ["https://example.com"] });

/** A UUID, any version, either case (job, scrape and thread ids). */
export const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** UUID (pattern instead of `format: "uuid"`, which TypeBox only checks when a format is registered). */
export const UuidField = t.String({
  pattern: UUID_PATTERN,
  errorMessage: "Invalid uuid",
  description: "UUID",
});

/** HTTP headers to send with the request (`Record<string,string>`). */
export const HeadersField = t.Record(t.String(), t.String(), { description: "Extra HTTP request headers" });

/** String-to-string metadata (webhook `metadata`). */
export const StringMap = t.Record(t.String(), t.String());

/** A JSON Schema object as sent by clients (zod schemas are converted by the SDK before sending). */
export const JsonSchemaField = t.Record(t.String(), t.Unknown(), { description: "JSON Schema" });

/** Longest accepted natural-language prompt (json format, crawl `prompt`, extract, agent). */
export const MAX_PROMPT_CHARS = 10_000;

/** A prompt string, ≤ {@link MAX_PROMPT_CHARS}. */
export const PromptField = t.String({ maxLength: MAX_PROMPT_CHARS });

/** Country default when `location` is given without one ([LATEST] spelling). */
export const DEFAULT_COUNTRY = "us-generic";

/** `location`: ISO 3166-1 alpha-2 country (or `us-generic`) and preferred languages. */
export const LocationSchema = strictObject({
  country: t.Optional(
    t.String({
      pattern: "^(?:[A-Za-z]{2}|[Uu][Ss]-[Gg][Ee][Nn][Ee][Rr][Ii][Cc])$",
      default: DEFAULT_COUNTRY,
      errorMessage: "Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code.",
    }),
  ),
  languages: t.Optional(t.Array(t.String())),
});

/**
 * `origin` and `integration`, accepted on every POST body: the SDKs inject `origin: "js-sdk@<ver>"` into
 * every request, so a strict schema without it would fail every SDK call (api-v2.md §2.1).
 */
export const OriginProps = {
  origin: t.Optional(t.String({ default: "api", description: "Caller identification, e.g. js-sdk@4.x" })),
  integration: t.Optional(t.Union([t.String(), t.Null()], { description: "Integration name, if any" })),
};

/** [LATEST] enterprise threat-protection override (SDK `ThreatProtectionOptions`). Accepted, not enforced. */
export const ThreatProtectionSchema = strictObject({
  mode: t.Optional(oneOf(["off", "manual-only", "normal", "zscaler"])),
  riskScoreThreshold: t.Optional(Int({ minimum: 0, maximum: 100 })),
  blacklist: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
  whitelist: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
  blockedTlds: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
  failurePolicy: t.Optional(oneOf(["open", "closed"])),
});

/** [LATEST] audit metadata (SDK `AuditMetadata`). Accepted, not used. */
export const AuditMetadataSchema = strictObject({ username: t.String() });

/** Cloud-only fields the SDK may send on several bodies; accepted so the calls do not fail. */
export const CloudProps = {
  threatProtection: t.Optional(ThreatProtectionSchema),
  auditMetadata: t.Optional(AuditMetadataSchema),
};
