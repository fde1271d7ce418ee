/**
 * @module plugins
 * The one place where plugins are registered. Adding a format is a new file in `plugins/formats/` and one line
 * here; nothing else changes.
 */
import type { ChangeHistory } from "../src/change-tracking/history.ts";
import type { LlmClient } from "../src/llm/client.ts";
import type { LlmLimits } from "../src/llm/render-call.ts";
import { LlmProviderRegistry } from "../src/llm/registry.ts";
import { RendererRegistry } from "../src/scrape/renderer.ts";
import { createBrandingFormat } from "./formats/branding.ts";
import { createChangeTrackingFormat } from "./formats/change-tracking.ts";
import { createJsonFormat } from "./formats/json.ts";
import { createDeterministicJsonFormat, type DeterministicDeps } from "./formats/deterministic-json.ts";
import { createSummaryFormat } from "./formats/summary.ts";
import { createQuestionFormat } from "./formats/question.ts";
import { createHighlightsFormat } from "./formats/highlights.ts";
import { createQueryFormat } from "./formats/query.ts";
import { createProductFormat } from "./formats/product.ts";
import { createMenuFormat } from "./formats/menu.ts";
import { ollamaProvider } from "./llm/ollama.ts";
import { openaiProvider } from "./llm/openai.ts";
import { attributesFormat } from "./formats/attributes.ts";
import { createAudioFormat } from "./formats/audio.ts";
import { createVideoFormat } from "./formats/video.ts";
import type { MediaSettings } from "../src/documents/media/settings.ts";
import { htmlFormat } from "./formats/html.ts";
import { imagesFormat } from "./formats/images.ts";
import { linksFormat } from "./formats/links.ts";
import { markdownFormat } from "./formats/markdown.ts";
import { rawHtmlFormat } from "./formats/raw-html.ts";
import { rawBase64Format } from "./formats/raw-base64.ts";
import { screenshotFormat } from "./formats/screenshot.ts";

export { createParserRegistry } from "./parsers/index.ts";

/** What the LLM-backed and history-keeping renderers are built with (absent: those formats are refused). */
export interface RendererDeps {
  /** The configured LLM, if any. */
  llm?: LlmClient;
  /** Per-page LLM limits. */
  llmLimits?: LlmLimits;
  /** Change-tracking history; without it the changeTracking format is not offered. */
  changeHistory?: ChangeHistory;
  /** Settings of the `audio` format (limits, ffmpeg, media fetcher through the egress gate). */
  media?: MediaSettings;
  /** Where `deterministicJson` runs and keeps its extractors; without it (or a browser) the format is not offered. */
  deterministic?: DeterministicDeps;
}

const DEFAULT_LLM_LIMITS: LlmLimits = { llmTimeoutMs: 120_000, llmTokenBudget: 100_000 };

/** The one registry of LLM provider plugins. */
export function createLlmProviderRegistry(): LlmProviderRegistry {
  return new LlmProviderRegistry().register(ollamaProvider).register(openaiProvider);
}

/** A registry holding every built-in format renderer. */
export function createRendererRegistry(deps: RendererDeps = {}): RendererRegistry {
  const limits = deps.llmLimits ?? DEFAULT_LLM_LIMITS;
  const registry = new RendererRegistry()
    .register(createJsonFormat(deps.llm, limits))
    .register(createDeterministicJsonFormat(deps.llm, limits, deps.deterministic))
    .register(createSummaryFormat(deps.llm, limits))
    .register(createQuestionFormat(deps.llm, limits))
    .register(createHighlightsFormat(deps.llm, limits))
    .register(createQueryFormat(deps.llm, limits))
    .register(createProductFormat(deps.llm, limits))
    .register(createMenuFormat(deps.llm, limits));
  if (deps.changeHistory) registry.register(createChangeTrackingFormat({ history: deps.changeHistory, llm: deps.llm, limits }));
  return registry
    .register(markdownFormat)
    .register(htmlFormat)
    .register(rawHtmlFormat)
    .register(rawBase64Format)
    .register(linksFormat)
    .register(imagesFormat)
    .register(attributesFormat)
    .register(createAudioFormat(deps.media))
    .register(createVideoFormat(deps.media))
    .register(screenshotFormat)
    .register(createBrandingFormat(deps.llm, limits));
}
