/**
 * @module branding/colors
 * How the `branding` format reads colours from the browser's snapshot (src/engines/browser/branding.ts): the
 * custom-property names that declare each colour role, the page background, a weighted vote of chromatic colours,
 * and the colour arithmetic (luminance, "chromatic or neutral") those choices rest on. Pure functions, testable
 * without a browser; derive.ts applies them in the order a colour is read.
 *
 * "Chromatic" is measured as chroma in OKLCH, a space built so that equal numbers look equally colourful at any
 * lightness. HSL saturation is not: Tailwind's gray-900 `#111827` has an HSL saturation of 0.39 (it is dark, so a
 * small difference between channels is a large fraction), and its grey text won the brand colour vote.
 */
import type { BrandingSnapshot, StyleSample } from "../engines/browser/branding.ts";
import { overlayWeight, type PlacedSample, type PlacedSnapshot } from "./observations.ts";

/** A colour role of the profile's `colors`. */
export type ColorRole = "primary" | "secondary" | "accent" | "background" | "textPrimary" | "textSecondary" | "link" | "success" | "warning" | "error";

const OPT = "(?:colou?r-)?";
const SUFFIX = "(?:-colou?r)?";
/** Custom-property names per colour role, strongest first. */
export const VAR_NAMES: Partial<Record<ColorRole, RegExp[]>> = {
  primary: [
    new RegExp(`^--(?:[\\w-]*-)?brand-primary${SUFFIX}$`),
    new RegExp(`^--${OPT}primary${SUFFIX}$`),
    new RegExp(`^--(?:[\\w-]*-)?primary${SUFFIX}$`),
    new RegExp(`^--(?:[\\w-]*-)?brand${SUFFIX}$`),
  ],
  // Bootstrap 5.3's `--bs-secondary-color` is its muted text colour, not its secondary colour (`--bs-secondary`).
  secondary: [new RegExp(`^--(?:[\\w-]*-)?brand-secondary${SUFFIX}$`), new RegExp(`^--(?!bs-secondary-colou?r$)(?:[\\w-]*-)?secondary${SUFFIX}$`)],
  accent: [new RegExp(`^--(?:[\\w-]*-)?(?:accent|highlight)${SUFFIX}$`)],
  // Most specific first: `--muted` is shadcn's muted *background* and `--muted-foreground` its muted text, and one
  // alternation matched in declaration order took whichever the sheet declared first. `bs-`: Bootstrap 5's names.
  textPrimary: [
    new RegExp(`^--(?:bs-)?${OPT}(?:text-primary|text-colou?r|body-colou?r|body-text)$`),
    new RegExp(`^--(?:bs-)?${OPT}(?:text|foreground|fg)$`),
  ],
  textSecondary: [
    new RegExp(`^--(?:bs-)?${OPT}(?:text-secondary|text-muted|muted-foreground|secondary-text|muted-text)$`),
    /^--bs-secondary-colou?r$/,
    new RegExp(`^--${OPT}muted$`),
  ],
  link: [new RegExp(`^--(?:bs-)?${OPT}link${SUFFIX}$`)],
  success: [new RegExp(`^--(?:[\\w-]*-)?success${SUFFIX}$`)],
  warning: [new RegExp(`^--(?:[\\w-]*-)?warn(?:ing)?${SUFFIX}$`)],
  error: [new RegExp(`^--(?:[\\w-]*-)?(?:error|danger|destructive)${SUFFIX}$`)],
};
/** Variants of a role colour that are not the colour itself (`--md-sys-color-on-primary`, `--primary-hover`…). */
const VARIANT_NAME = /(^--|-)(on|fg|foreground|contrast|hover|active|focus|disabled|text|border|shadow|ring)(-|$)/;
/** Roles whose names are themselves about text (the variant filter does not apply). */
export const TEXT_ROLES = new Set<ColorRole>(["textPrimary", "textSecondary", "link"]);
/** Class hints of the elements that show each status colour. */
export const STATUS_HINTS: Record<"success" | "warning" | "error", RegExp> = { success: /success/, warning: /warn/, error: /error|danger/ };

/**
 * The page background: body, then root, then the wrapper that paints the page when neither does (a Next.js
 * `#__next { background: #020617 }` page read as white), composited over white; the browser's dark canvas for
 * `color-scheme: dark` pages without one.
 */
export function pageBackground(s: BrandingSnapshot | PlacedSnapshot): string {
  const c = s.bodyBackground || s.rootBackground || ("wrapperBackground" in s ? s.wrapperBackground : undefined);
  if (!c) return s.colorSchemeProperty.trim() === "dark" ? "#121212" : "#FFFFFF";
  if (c.length === 7) return c;
  const [r, g, b, a] = channels(c);
  const over = (v: number) => Math.round(v * a + 255 * (1 - a));
  return toHex(over(r), over(g), over(b));
}

/** The first custom property whose name matches a pattern (patterns in priority order) and whose value is a colour. */
export function varColor(s: BrandingSnapshot, patterns: RegExp[], skipVariants: boolean): string | undefined {
  for (const p of patterns) {
    for (const [name, v] of Object.entries(s.cssVars)) {
      const n = name.toLowerCase();
      if (v.color && p.test(n) && !(skipVariants && VARIANT_NAME.test(n))) return v.color;
    }
  }
  return undefined;
}

/** Colours by total weight, heaviest first; ties keep first appearance. */
export function ranked(entries: [string, number][]): string[] {
  const total = new Map<string, number>();
  for (const [c, w] of entries) total.set(c, (total.get(c) ?? 0) + w);
  return [...total.entries()].sort((a, b) => b[1] - a[1]).map(([c]) => c);
}

/**
 * Brand colours of buttons (×3), headings (×2), links and sections (×1), by weighted count: chromatic, and none of
 * `exclude` (the page's text colour and background: grey text on every heading is not a brand colour). A link
 * without text shows no colour, and a sample in an overlay counts for less ({@link overlayWeight}).
 */
export function chromaticVote(samples: PlacedSample[], exclude: readonly (string | undefined)[] = []): string[] {
  const weight: Partial<Record<StyleSample["kind"], number>> = { button: 3, heading: 2, link: 1, section: 1 };
  const entries: [string, number][] = [];
  for (const x of samples) {
    const w = (weight[x.kind] ?? 0) * overlayWeight(x) * (x.kind === "link" && x.textLength === 0 ? 0 : 1);
    if (!w) continue;
    for (const c of [x.background, x.kind === "section" ? "" : x.color, x.kind === "button" ? x.borderColor : ""]) {
      if (isBrandColor(c, exclude)) entries.push([c, w]);
    }
  }
  return ranked(entries);
}

/**
 * A colour that can be a brand colour: {@link isChromatic} at `minChroma`, and not one of `exclude` (the text colour,
 * the background).
 */
export function isBrandColor(hex: string | undefined, exclude: readonly (string | undefined)[], minChroma = MIN_BRAND_CHROMA): hex is string {
  return isChromatic(hex, minChroma) && !exclude.some((e) => e !== undefined && e.slice(0, 7) === hex.slice(0, 7));
}

function channels(hex: string): [number, number, number, number] {
  const n = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  return [n(1), n(3), n(5), hex.length === 9 ? n(7) / 255 : 1];
}

function toHex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0").toUpperCase()).join("")}`;
}

/** WCAG relative luminance (0 black … 1 white). */
export function luminance(hex: string): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = channels(hex);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * Least OKLCH chroma of a brand colour guessed from a vote (links, headings, sections, a button's text or border).
 * Tailwind's slate and gray ramps stay below 0.045 (`#0F172A` 0.040, `#334155` 0.039), Atlassian's blue-grey text
 * `#172B4D` is 0.068, Bootstrap's `#6C757D` 0.016; dark brand colours are above it (navy `#1E3A8A` 0.138, teal
 * `#0F766E` 0.086, emerald `#064E3B` 0.073).
 */
export const MIN_BRAND_CHROMA = 0.07;
/**
 * Least OKLCH chroma of a filled button's colour and of a declared `--secondary`/`--accent`: a fill is chosen, not
 * inherited text, so dark brand colours count there that {@link MIN_BRAND_CHROMA} loses (Stripe's navy `#0A2540`
 * 0.060, `#13294B` 0.069, `#1B4332` 0.055, `#0B3D2E` 0.058). Every grey of Tailwind's gray, slate, zinc, neutral and
 * stone ramps (50–950) is below it (slate-500 `#64748B` 0.041 the most, 0.046 in Tailwind 4), and Bootstrap's
 * `#6C757D`, `#212529`, `#343A40` (0.017 at most). Darker greens and blue-greys such as `#1E3932` (0.036) or `#232F3E`
 * (0.032) are no more colourful than slate-500: only a button the page names primary gives them (derive.ts).
 */
export const MIN_FILL_CHROMA = 0.05;
/** OKLCH lightness bounds of a brand colour: below is near-black, above near-white, whatever the hue. */
export const BRAND_LIGHTNESS_RANGE = [0.18, 0.98] as const;

/**
 * Colourful enough (`minChroma`), and neither near-white nor near-black, to be a brand colour (not a neutral): OKLCH
 * chroma and lightness. `minChroma` 0: any opaque colour of brand lightness.
 */
export function isChromatic(hex: string | undefined, minChroma = MIN_BRAND_CHROMA): hex is string {
  if (!hex) return false;
  if (channels(hex)[3] < 0.5) return false;
  const { lightness, chroma } = oklch(hex);
  return chroma >= minChroma && lightness > BRAND_LIGHTNESS_RANGE[0] && lightness < BRAND_LIGHTNESS_RANGE[1];
}

/** OKLCH lightness (0 black … 1 white) and chroma (0 grey, about 0.37 at most in sRGB) of `#RRGGBB` (Björn Ottosson's OKLab). */
export function oklch(hex: string): { lightness: number; chroma: number } {
  const [r, g, b] = channels(hex).slice(0, 3).map((v) => srgbToLinear(v / 255)) as [number, number, number];
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  const a = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
  const bb = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s;
  return { lightness: 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s, chroma: Math.hypot(a, bb) };
}

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
