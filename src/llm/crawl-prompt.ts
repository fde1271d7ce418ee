/**
 * @module llm/crawl-prompt
 * Crawl prompts (api-v2.md §2.5): `prompt` on `POST /v2/crawl` and `POST /v2/crawl/params-preview` is turned
 * into crawler options by the configured LLM. The generated options are validated exactly like user input
 * (the same strict schema and regex checks; invalid ones are a 400 "Failed to process natural language
 * prompt: …"), and options the caller set explicitly win over generated ones.
 */
import { parseCrawlBody, type CrawlRequest } from "../api/crawl.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { BadRequestError, CrawlboxError } from "../errors.ts";
import type { LlmClient } from "./client.ts";
import { LlmNotConfiguredError } from "./errors.ts";

/** The options an LLM may generate, as the JSON Schema its answer must follow. */
export const CRAWL_OPTIONS_SCHEMA = {
  type: "object",
  properties: {
    includePaths: { type: "array", items: { type: "string" }, description: "Regexes of URL paths to include" },
    excludePaths: { type: "array", items: { type: "string" }, description: "Regexes of URL paths to exclude" },
    maxDiscoveryDepth: { type: "integer", minimum: 0 },
    limit: { type: "integer", minimum: 1 },
    crawlEntireDomain: { type: "boolean" },
    allowExternalLinks: { type: "boolean" },
    allowSubdomains: { type: "boolean" },
    ignoreQueryParameters: { type: "boolean" },
    sitemap: { type: "string", enum: ["skip", "include", "only"] },
    deduplicateSimilarURLs: { type: "boolean" },
    regexOnFullURL: { type: "boolean" },
  },
  additionalProperties: false,
} as const;

const KEYS = Object.keys(CRAWL_OPTIONS_SCHEMA.properties);

/** Upstream's message prefix for a prompt that could not be turned into options. */
export const PROMPT_FAILED = "Failed to process natural language prompt";

/** Longest a crawl prompt may take (the SDK's HTTP timeout is 60 s). */
const PROMPT_TIMEOUT_MS = 55_000;

/** Turns crawl prompts into options. */
export class CrawlPromptService {
  constructor(
    private readonly llm: LlmClient | undefined,
    private readonly ledger: CreditLedger,
    private readonly limits: { llmTimeoutMs: number; llmTokenBudget: number },
  ) {}

  /** Options generated for `url` from `prompt`, validated like user input. */
  async generate(url: string, prompt: string, who: KeyIdentity, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.llm) throw new LlmNotConfiguredError("A crawl prompt");
    const limitMs = Math.min(this.limits.llmTimeoutMs, PROMPT_TIMEOUT_MS);
    const raw = await this.llm.crawlOptions(url, prompt, CRAWL_OPTIONS_SCHEMA as unknown as Record<string, unknown>, {
      deadline: Date.now() + limitMs,
      limitMs,
      tokenBudget: this.limits.llmTokenBudget,
      onTokens: (t) => this.ledger.charge(who, 0, t),
      ...(signal ? { signal } : {}),
    });
    const options: Record<string, unknown> = {};
    for (const k of KEYS) if (raw[k] !== undefined && raw[k] !== null) options[k] = raw[k];
    try {
      parseCrawlBody({ url, ...options });
    } catch (err) {
      const why = err instanceof CrawlboxError ? `${err.message}${err.details ? ` ${JSON.stringify(err.details)}` : ""}` : String(err);
      throw new BadRequestError(`${PROMPT_FAILED}: the generated options are invalid: ${why}`, { generated: options });
    }
    return options;
  }

  /**
   * Resolves `req.prompt`: the request with generated options under the caller's explicit ones (validated
   * again as a whole), and the generated options for `promptGeneratedOptions`.
   */
  async resolve(req: CrawlRequest, body: unknown, who: KeyIdentity, signal?: AbortSignal): Promise<{ req: CrawlRequest; generated: Record<string, unknown> }> {
    const generated = await this.generate(req.url, req.prompt!, who, signal);
    const raw = { ...(body as Record<string, unknown>) };
    delete raw.prompt;
    const merged = parseCrawlBody({ ...generated, ...raw });
    merged.explicitCrawlerOptions = req.explicitCrawlerOptions;
    return { req: merged, generated };
  }
}
