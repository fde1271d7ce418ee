/**
 * @module branding/colors
 * How the `branding` format reads colours from the browser's snapshot (src/engines/browser/branding.ts): the
 * custom-property names that declare each colour role, the page background, a weighted vote of chromatic colours,
 * and the colour arithmetic (luminance, "chromatic or neutral") those choices rest on. Pure functions, testable
 * without a browser; derive.ts applies them in the order a colour is read.
 */
import type { BrandingSnapshot, StyleSample } from "../engines/browser/branding.ts";

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
  secondary: [new RegExp(`^--(?:[\\w-]*-)?brand-secondary${SUFFIX}$`), new RegExp(`^--(?:[\\w-]*-)?secondary${SUFFIX}$`)],
  accent: [new RegExp(`^--(?:[\\w-]*-)?(?:accent|highlight)${SUFFIX}$`)],
  textPrimary: [new RegExp(`^--${OPT}(?:text-primary|text|foreground|fg|body-colou?r|text-colou?r)$`)],
  textSecondary: [new RegExp(`^--${OPT}(?:text-secondary|text-muted|muted-foreground|secondary-text|muted)$`)],
  link: [new RegExp(`^--${OPT}link${SUFFIX}$`)],
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

/** The page background: body, then root, composited over white; the browser's dark canvas for `color-scheme: dark` pages without one. */
export function pageBackground(s: BrandingSnapshot): string {
  const c = s.bodyBackground || s.rootBackground;
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

/** Chromatic colours of buttons (×3), headings (×2), links and sections (×1), by weighted count. */
export function chromaticVote(samples: StyleSample[]): string[] {
  const weight: Partial<Record<StyleSample["kind"], number>> = { button: 3, heading: 2, link: 1, section: 1 };
  const entries: [string, number][] = [];
  for (const x of samples) {
    const w = weight[x.kind];
    if (!w) continue;
    for (const c of [x.background, x.kind === "section" ? "" : x.color, x.kind === "button" ? x.borderColor : ""]) if (isChromatic(c)) entries.push([c, w]);
  }
  return ranked(entries);
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

/** Saturated enough, and neither near-white nor near-black, to be a brand colour (not a neutral). */
export function isChromatic(hex: string | undefined): hex is string {
  if (!hex) return false;
  const [r, g, b, a] = channels(hex);
  if (a < 0.5) return false;
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const l = (max + min) / 2;
  const sat = max === min ? 0 : (max - min) / (1 - Math.abs(2 * l - 1));
  return sat >= 0.2 && l > 0.08 && l < 0.95;
}
