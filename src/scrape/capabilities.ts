/**
 * @module scrape/capabilities
 * Refuses, before anything is fetched, a request that asks for something this build cannot do, with a 400 that
 * says what and why. Nothing a client asks for is silently ignored.
 */
import { UnsupportedOptionError } from "../errors.ts";
import { LlmNotConfiguredError } from "../llm/errors.ts";
import { usesModel } from "../redact/redactor.ts";
import type { RendererNeed, RendererRegistry } from "./renderer.ts";
import type { ScrapeSpec } from "./spec.ts";

/** Options that only a browser can honour, with the reason shown to the client. */
function browserOptions(spec: ScrapeSpec): string[] {
  const out: string[] = [];
  if (spec.waitForMs > 0) out.push("waitFor");
  if (spec.mobile) out.push("mobile");
  if (spec.profile) out.push("profile");
  if (spec.proxy === "stealth" || spec.proxy === "enhanced") out.push(`proxy: "${spec.proxy}"`);
  return out;
}

/** What a missing capability is called in a refusal. */
const NEED_WORDS: Record<RendererNeed, string> = {
  browser: "the browser engine",
  sandbox: "the browser (to run code in a sandbox page of its own)",
  llm: "an LLM provider",
};

/** Why a server has no browser engine, and the fix, as the other browser refusals say it. */
export const NO_BROWSER = "Chromium was not found (install Debian's chromium package, or set CHROME_PATH to a Chromium or Chrome binary), or CRAWLBOX_BROWSER=off disables it";

/** Throws a 400 when `spec` needs a capability missing from `available`, or a format no plugin renders. */
export function assertSupported(spec: ScrapeSpec, registry: RendererRegistry, available: ReadonlySet<RendererNeed>): void {
  if (spec.actions.length > 0 && !available.has("browser")) {
    throw new UnsupportedOptionError(
      "SCRAPE_ACTIONS_NOT_SUPPORTED",
      `Actions need the browser engine, which this server does not have: ${NO_BROWSER}.`,
    );
  }
  if (!available.has("browser")) {
    const opts = browserOptions(spec);
    if (opts.length > 0) {
      throw new UnsupportedOptionError(
        "SCRAPE_BROWSER_REQUIRED",
        `These options need the browser engine, which this server does not have (${NO_BROWSER}): ${opts.join(", ")}.`,
        { options: opts },
      );
    }
  }
  if (spec.redactPII && usesModel(spec.redactPII) && !available.has("llm")) {
    throw new LlmNotConfiguredError(
      `redactPII in "${spec.redactPII.mode}" mode (the default; {"mode": "fast"} needs no model and redacts e-mails, phones, financial numbers and secrets, not names or places)`,
    );
  }
  if (spec.onlyCleanContent && !available.has("llm")) throw new LlmNotConfiguredError("onlyCleanContent (an LLM pass that removes boilerplate from the markdown)");
  for (const format of spec.formats) {
    const renderer = registry.get(format.type);
    if (!renderer) {
      throw new UnsupportedOptionError(
        "SCRAPE_UNSUPPORTED_FORMAT",
        `The "${format.type}" format is not supported by this crawlbox build. Supported: ${registry.types().join(", ")}.`,
        { format: format.type },
      );
    }
    const missing = renderer.needs.filter((n) => !available.has(n));
    // An LLM is configuration, not a build feature: say which variables enable it.
    if (missing.includes("llm")) throw new LlmNotConfiguredError(`The "${format.type}" format`);
    if (missing.length > 0) {
      throw new UnsupportedOptionError(
        // Upstream's own code for branding where it cannot be done (api-v2.md §6.2).
        format.type === "branding" ? "SCRAPE_BRANDING_NOT_SUPPORTED" : "SCRAPE_UNSUPPORTED_FORMAT",
        `The "${format.type}" format needs ${missing.map((n) => NEED_WORDS[n]).join(" and ")}, which this server does not have (install Chromium or set CHROME_PATH; CRAWLBOX_BROWSER=off disables it).`,
        { format: format.type, missing },
      );
    }
    renderer.validate?.(format, spec);
  }
}
