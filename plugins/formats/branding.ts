/**
 * @module plugins/formats/branding
 * The `branding` format (api-v2.md §6.2): a {@link BrandingProfile} of the page, from what the browser observed
 * (src/engines/browser/branding.ts: computed styles, CSS custom properties, logo candidates, favicon, meta).
 * Everything but `personality` is deterministic and needs no LLM (src/branding/derive.ts); with an LLM configured,
 * one call describes the brand's personality from the page text (passed as delimited data, src/llm/prompts.ts).
 *
 * Needs the live rendered page, so a cached copy is never used (`needsFreshPage`; with `minAge` or `lockdown`, which
 * allow only the cache, a 400 before anything is fetched); a page the browser did not render (a PDF) gets a warning.
 */
import { deriveBranding, type BrandingProfile } from "../../src/branding/derive.ts";
import type { BrandingArtifact } from "../../src/engines/browser/branding.ts";
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { assertLivePageAllowed } from "../../src/scrape/page-source.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

// The derivation lives in src/branding/; re-exported so what this module exported before stays importable here.
export { baseUnit, deriveBranding, fontStack, nameFromLogoAlt, nameFromTitle, type BrandingProfile, type ComponentStyle } from "../../src/branding/derive.ts";
export { isChromatic, luminance } from "../../src/branding/colors.ts";

/** Extra credits of a page with `branding`: none (1 in all); the personality call's tokens are counted per key. */
export const BRANDING_EXTRA_CREDITS = 0;

/** Creates the `branding` renderer; `llm` (optional) adds `personality`. */
export function createBrandingFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "branding",
    needs: ["browser"],
    views: ["markdown"],
    extraCredits: BRANDING_EXTRA_CREDITS,
    needsFreshPage: true,
    // Upstream's code for a branding scrape it cannot do.
    validate: (format, spec) => assertLivePageAllowed(format, spec, "SCRAPE_BRANDING_NOT_SUPPORTED"),
    async render(ctx) {
      const artifact = ctx.page.artifacts?.branding as BrandingArtifact | undefined;
      if (!artifact) return { warning: "No branding was collected: the URL is not a web page the browser rendered." };
      if ("error" in artifact) return { warning: `Branding could not be collected: ${artifact.error}` };
      let branding: BrandingProfile;
      try {
        branding = deriveBranding(artifact);
      } catch (err) {
        return { warning: `Branding could not be derived: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (!llm) return { branding };
      try {
        const about = [branding.brandName && `Brand name: ${branding.brandName}`, artifact.title && `Title: ${artifact.title}`, ctx.markdown()];
        branding.personality = await llm.brandPersonality(about.filter(Boolean).join("\n\n"), llmCallFor(ctx, limits, { failureKept: true }));
        return { branding };
      } catch (err) {
        // The personality is an extra: the deterministic profile is still worth returning.
        return { branding, warning: `Branding personality unavailable: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
  };
}
