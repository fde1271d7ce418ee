/**
 * @module redact/model
 * The model side of PII redaction (`redactPII` modes `accurate` and `aggressive`): the configured LLM reads the
 * markdown, chunk by chunk, and quotes the PII it finds with its entity type; every occurrence of each quote is
 * then a span (redact/apply.ts). Quoting rather than offsets: models copy text well and count characters badly.
 */
import { chunkText } from "../llm/chunk.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { piiMessages } from "../llm/prompts.ts";
import type { PiiEntity } from "./detectors.ts";

/** The answer's JSON Schema, limited to the requested entity types. */
function spansSchema(entities: readonly PiiEntity[]): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      spans: {
        type: "array",
        items: {
          type: "object",
          properties: { text: { type: "string" }, type: { type: "string", enum: [...entities] } },
          required: ["text", "type"],
        },
      },
    },
    required: ["spans"],
  };
}

/** The PII the model quotes from `text`, for `entities`. Throws the LLM's typed errors (timeout, budget, …). */
export async function findModelQuotes(llm: LlmClient, text: string, entities: readonly PiiEntity[], call: LlmCall): Promise<{ text: string; type: PiiEntity }[]> {
  if (entities.length === 0 || text.trim() === "") return [];
  const schema = spansSchema(entities);
  const chunks = chunkText(text, llm.chunkChars(schema));
  const spent = { tokens: 0 };
  const out: { text: string; type: PiiEntity }[] = [];
  for (let i = 0; i < chunks.length; i++) {
    const answer = (await llm.structured(piiMessages(chunks[i]!, entities, { index: i, count: chunks.length }), schema, call, spent)) as {
      spans: { text: string; type: PiiEntity }[];
    };
    out.push(...answer.spans.filter((s) => entities.includes(s.type)));
  }
  return out;
}
