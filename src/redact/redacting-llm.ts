/**
 * @module redact/redacting-llm
 * An LLM client whose every chat turn has its page-bearing messages redacted before they are sent: for a format that
 * gives the model more than the redacted markdown, and in turns it does not write itself. `deterministicJson`
 * (plugins/formats/deterministic-json.ts) shows the model an outline of the page's own HTML beside the markdown,
 * and the extractor it writes calls `askLlm` with text it read from the page's DOM; before this, both went to the
 * model with the page's PII whatever `redactPII` said. Redacting at the turn, not in each place that builds a
 * prompt, covers them all, the retry that quotes a failed run's problem included.
 *
 * System messages are crawlbox's own instructions and are sent as they are; user and assistant messages are
 * redacted as the markdown is (in the model modes, that is one more model read of each turn's text).
 */
import type { LlmClient } from "../llm/client.ts";
import type { LlmMessage } from "../llm/types.ts";
import type { RedactText } from "./json-strings.ts";

/** `llm` with its chat turns' non-system messages redacted by `redact`; everything else is `llm`'s own. */
export function redactingLlm(llm: LlmClient, redact: RedactText): LlmClient {
  const guarded = Object.create(llm) as LlmClient;
  guarded.chat = async (messages, format, call, spent) => {
    const sent: LlmMessage[] = [];
    for (const m of messages) sent.push(m.role === "system" ? m : { ...m, content: await redact(m.content) });
    return llm.chat(sent, format, call, spent);
  };
  return guarded;
}
