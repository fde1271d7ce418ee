/**
 * @module branding/derive
 * The deterministic part of the `branding` format: {@link deriveBranding} turns the browser's snapshot
 * (src/engines/browser/branding.ts: computed styles, CSS custom properties, logo candidates, favicon, meta) into a
 * {@link BrandingProfile}, a pure function testable without a browser. plugins/formats/branding.ts serves it and
 * adds the LLM-written `personality`.
 *
 * A colour is read in this order (first hit wins), so a site's declared design tokens beat guesses:
 * ```
 * a custom property named for the role (--brand-primary, --color-primary, --primary, --bs-primary, --brand …)
 *   ─▶ the elements that carry the role (primary button background, link colour, body text colour …)
 *   ─▶ a weighted vote of chromatic colours (buttons ×3, headings ×2, links and sections ×1)
 * ```
 * Only a brand colour can be `primary` (when guessed), `secondary` or `accent`: chromatic (colors.ts, OKLCH
 * chroma), and neither the text colour nor the background. A declared `--primary` is taken as declared, even black
 * (a monochrome design system paints its primary buttons with it); a declared neutral `--secondary` or `--accent`
 * is a framework's surface or default (shadcn's `#F3F4F6`, Bootstrap's `#6C757D`), not a brand colour. A filled
 * button's colour and a declared `--secondary`/`--accent` need less chroma than a voted one (`MIN_FILL_CHROMA`: a
 * dark navy or green fill is a choice, a navy text is not), and a fill may be the text colour (a navy button on a
 * page set in navy); a button the page names primary (class `primary`/`cta`) gives its fill whatever its chroma,
 * as a declared `--primary` does.
 *
 * Samples are weighted by where they sit (observations.ts): a consent banner's are dropped, a dialog's or a fixed
 * bar's count for little, and a link's colour counts by its text, in running text more than in navigation.
 * A field with no evidence on the page is left out rather than invented, and so is a value the page's own styles do
 * not set (the browser's black text and Times New Roman, evidence.ts).
 */
import type { BrandingSnapshot, StyleSample } from "../engines/browser/branding.ts";
import { ownStyle, styleEvidence } from "./evidence.ts";
import {
  chromaticVote,
  type ColorRole,
  isBrandColor,
  isChromatic,
  luminance,
  MIN_FILL_CHROMA,
  pageBackground,
  ranked,
  STATUS_HINTS,
  TEXT_ROLES,
  VAR_NAMES,
  varColor,
} from "./colors.ts";
import { familyOf, fontStack } from "./fonts.ts";
import { logoUrl, pickLogo } from "./logo.ts";
import { nameFromLogoAlt, nameFromTitle } from "./names.ts";
import { linkWeight, overlayWeight, type PlacedSample, type PlacedSnapshot } from "./observations.ts";

// Moved to their own modules; exported here too, as plugins/formats/branding.ts re-exports them from this one.
export { fontStack, nameFromLogoAlt, nameFromTitle };

/** Button, input or other component style. */
export interface ComponentStyle {
  background?: string;
  textColor?: string;
  borderColor?: string;
  borderRadius?: string;
  shadow?: string;
}

/** The `branding` field of a document (the subset of upstream's BrandingProfile crawlbox derives). */
export interface BrandingProfile {
  colorScheme: "light" | "dark";
  brandName?: string;
  logo?: string;
  colors: Partial<Record<ColorRole, string>>;
  fonts: { family: string; role: "primary" | "heading" | "code" }[];
  typography: {
    fontFamilies: { primary?: string; heading?: string; code?: string };
    fontStacks: { primary?: string[]; heading?: string[]; code?: string[] };
    fontSizes: { h1?: string; h2?: string; h3?: string; body?: string; small?: string };
    fontWeights: { h1?: number; h2?: number; h3?: number; body?: number };
    lineHeights: { heading?: number; body?: number };
  };
  spacing: { baseUnit?: number; borderRadius?: string; padding: Record<string, number>; margins: Record<string, number> };
  components: { buttonPrimary?: ComponentStyle; buttonSecondary?: ComponentStyle; input?: ComponentStyle };
  images: { logo?: string; logoHref?: string; logoAlt?: string; favicon?: string; ogImage?: string };
  personality?: Record<string, unknown>;
}

/** The order of `colors` in a profile (the text colour is worked out before the brand colours, but listed after them). */
const COLOR_ORDER: ColorRole[] = ["background", "primary", "secondary", "accent", "textPrimary", "link", "textSecondary", "success", "warning", "error"];

/** The deterministic profile of a snapshot (no LLM). */
export function deriveBranding(s: BrandingSnapshot | PlacedSnapshot): BrandingProfile {
  // Only what the page's own styles set: the browser's defaults (black text, Times New Roman) are not its brand.
  // A consent banner's elements are the consent tool's, not the page's.
  const has = styleEvidence(s);
  const samples = (s.samples as PlacedSample[]).map((x) => ownStyle(x, has)).filter((x) => overlayWeight(x) > 0);
  const of = (kind: StyleSample["kind"]) => samples.filter((x) => x.kind === kind);
  const buttons = of("button");
  const headings = of("heading");
  const links = of("link");
  const body = of("body")[0];
  const texts = of("text");

  const background = pageBackground(s);
  const colors: Partial<Record<ColorRole, string>> = { background };
  const fromVar = (role: ColorRole) => varColor(s, VAR_NAMES[role] ?? [], !TEXT_ROLES.has(role));
  const mainText = dominantText(texts) ?? body;
  colors.textPrimary = fromVar("textPrimary") ?? (mainText?.color || (has("color") ? s.bodyColor : "") || undefined);
  // The text colour and the background are never the brand's colour, however coloured (a navy text `#172B4D`).
  const notBrand = [colors.textPrimary, background];
  const brand = (c: string | undefined): c is string => isBrandColor(c, notBrand);
  // A button's fill: only the background excluded, at the fill's chroma; any chroma for a button named primary.
  const fill = (c: string | undefined): c is string => isBrandColor(c, [background], MIN_FILL_CHROMA);
  const primaryFill = (b: PlacedSample): boolean => fill(b.background) || (isNamedPrimary(b) && isBrandColor(b.background, [background], 0));
  const brandVar = (role: ColorRole) => {
    const c = fromVar(role);
    return isBrandColor(c, notBrand, MIN_FILL_CHROMA) ? c : undefined;
  };
  const positive = (entries: [string, number][]) => entries.filter(([, w]) => w > 0);

  colors.primary =
    fromVar("primary") ??
    ranked(positive(buttons.filter(primaryFill).map((b) => [b.background, b.area * overlayWeight(b) * (isNamedPrimary(b) ? 2 : 1)])))[0] ??
    ranked(positive(links.filter((l) => brand(l.color)).map((l) => [l.color, linkWeight(l)])))[0] ??
    (brand(s.themeColor) ? s.themeColor : undefined) ??
    ranked(positive(headings.filter((h) => brand(h.color)).map((h) => [h.color, h.area * overlayWeight(h)])))[0];
  const btnPrimary = pickPrimaryButton(buttons, colors.primary, background);
  const btnSecondary = pickSecondaryButton(buttons, btnPrimary);
  const pool = chromaticVote(samples, notBrand).filter((c) => c !== colors.primary);
  colors.secondary =
    brandVar("secondary") ??
    // Its fill is a fill; its border and text are voted colours.
    (btnSecondary && fill(btnSecondary.background) && btnSecondary.background !== colors.primary ? btnSecondary.background : undefined) ??
    (btnSecondary ? [btnSecondary.borderColor, btnSecondary.color].find((c) => brand(c) && c !== colors.primary) : undefined) ??
    pool[0];
  colors.accent = brandVar("accent") ?? pool.find((c) => c !== colors.secondary);

  colors.link = fromVar("link") ?? ranked(positive(links.filter((l) => l.color).map((l) => [l.color, linkWeight(l)])))[0];
  colors.textSecondary =
    fromVar("textSecondary") ??
    ranked([...texts, ...of("small")].filter((t) => t.color && t.color !== colors.textPrimary && t.color !== colors.link).map((t) => [t.color, t.textLength]))[0];
  for (const role of ["success", "warning", "error"] as const) {
    colors[role] =
      fromVar(role) ??
      of("status")
        .filter((x) => STATUS_HINTS[role].test(x.hints))
        .flatMap((x) => [x.background, x.color])
        .find((c) => isChromatic(c));
  }

  const stack = (sample: StyleSample | undefined) => {
    const names = sample ? fontStack(sample.fontFamily) : [];
    return names.length > 0 ? names : undefined;
  };
  const h = (level: number) => headings.find((x) => x.level === level);
  const headingSample = h(1) ?? headings[0];
  const codeSample = of("code")[0];
  const stacks = { primary: stack(mainText), heading: stack(headingSample), code: stack(codeSample) };
  const families = { primary: stacks.primary && familyOf(stacks.primary), heading: stacks.heading && familyOf(stacks.heading), code: stacks.code && familyOf(stacks.code) };
  const fonts: BrandingProfile["fonts"] = [];
  for (const role of ["primary", "heading", "code"] as const) {
    const family = families[role];
    if (family && !fonts.some((f) => f.family === family)) fonts.push({ family, role });
  }
  const size = (x: StyleSample | undefined) => (x && has("fontSize") ? `${x.fontSize}px` : undefined);
  const weight = (x: StyleSample | undefined) => (x && has("fontWeight") ? x.fontWeight : undefined);
  const ratio = (x: StyleSample | undefined) =>
    x && has("lineHeight") && x.lineHeight !== null && x.fontSize > 0 ? Math.round((x.lineHeight / x.fontSize) * 100) / 100 : undefined;

  const inputs = of("input");
  const spacingSamples = [...buttons, ...inputs, ...of("section"), ...texts, ...headings];
  const lengths = spacingSamples.flatMap((x) => [...(has("padding") ? x.padding : []), ...(has("margin") ? x.margin : [])]);
  const padding: Record<string, number> = {};
  const margins: Record<string, number> = {};
  if (has("padding")) {
    if (btnPrimary) Object.assign(padding, { buttonY: btnPrimary.padding[0], buttonX: btnPrimary.padding[1] });
    if (inputs[0]) Object.assign(padding, { inputY: inputs[0].padding[0], inputX: inputs[0].padding[1] });
    const section = mostCommon(of("section").map((x) => x.padding[0]).filter((n) => n > 0));
    if (section !== undefined) padding.section = section;
  }
  if (has("margin")) {
    const headingMargin = mostCommon(headings.map((x) => x.margin[1]).filter((n) => n > 0));
    const paragraphMargin = mostCommon(texts.filter((x) => x.tag === "p").map((x) => x.margin[1]).filter((n) => n > 0));
    if (headingMargin !== undefined) margins.heading = headingMargin;
    if (paragraphMargin !== undefined) margins.paragraph = paragraphMargin;
  }
  const radius = has("radius") ? mostCommon([...buttons, ...inputs].map((x) => x.borderRadius).filter((r) => parseFloat(r) > 0)) : undefined;
  // Components are described only by what the page styles of them; the browser's grey button is not the brand's.
  const styled = (["color", "background", "border", "radius", "shadow"] as const).some(has);

  const logo = pickLogo(s.logos, s.url);
  const images: BrandingProfile["images"] = {};
  if (logo) {
    images.logo = logoUrl(logo);
    if (logo.href) images.logoHref = logo.href;
    if (logo.alt) images.logoAlt = logo.alt;
  }
  if (s.favicon) images.favicon = s.favicon;
  if (s.ogImage) images.ogImage = s.ogImage;

  const profile: BrandingProfile = {
    colorScheme: luminance(background) < 0.4 ? "dark" : "light",
    colors: prune(Object.fromEntries(COLOR_ORDER.map((role) => [role, colors[role]]))),
    fonts,
    typography: {
      fontFamilies: prune(families),
      fontStacks: prune(stacks),
      fontSizes: prune({ h1: size(h(1)), h2: size(h(2)), h3: size(h(3)), body: size(mainText), small: size(of("small")[0]) }),
      fontWeights: prune({ h1: weight(h(1)), h2: weight(h(2)), h3: weight(h(3)), body: weight(mainText) }),
      lineHeights: prune({ heading: ratio(headingSample), body: ratio(mainText) }),
    },
    spacing: prune({ baseUnit: baseUnit(lengths), borderRadius: radius, padding, margins }),
    components: styled
      ? prune({ buttonPrimary: btnPrimary && component(btnPrimary), buttonSecondary: btnSecondary && component(btnSecondary), input: inputs[0] && component(inputs[0]) })
      : {},
    images,
  };
  const brandName = s.siteName ?? s.applicationName ?? (logo?.alt ? nameFromLogoAlt(logo.alt) : undefined) ?? nameFromTitle(s.title, s.url);
  if (brandName) profile.brandName = brandName;
  if (images.logo) profile.logo = images.logo;
  return profile;
}

/** A button the page names primary by its class or id (`btn-primary`, `cta`), not a secondary one. */
function isNamedPrimary(b: StyleSample): boolean {
  return /primary|cta/.test(b.hints) && !/secondary/.test(b.hints);
}

/** The primary button: the page's own before a dialog's or a fixed bar's; by class, then by the primary colour, then the largest coloured one. */
function pickPrimaryButton(all: PlacedSample[], primary: string | undefined, background: string): PlacedSample | undefined {
  const inPage = all.filter((b) => !b.overlay);
  const buttons = inPage.length > 0 ? inPage : all;
  return (
    buttons.find(isNamedPrimary) ??
    buttons.find((b) => primary !== undefined && b.background === primary) ??
    [...buttons].filter((b) => isBrandColor(b.background, [background], MIN_FILL_CHROMA)).sort((a, b) => b.area - a.area)[0] ??
    buttons[0]
  );
}

function pickSecondaryButton(all: PlacedSample[], primary: PlacedSample | undefined): PlacedSample | undefined {
  const inPage = all.filter((b) => !b.overlay && b !== primary);
  const others = inPage.length > 0 ? inPage : all.filter((b) => b !== primary);
  return (
    others.find((b) => /secondary|outline|ghost|tertiary/.test(b.hints)) ??
    others.find((b) => !primary || b.background !== primary.background || b.color !== primary.color)
  );
}

/** The text sample whose colour and font carry the most text. */
function dominantText(texts: StyleSample[]): StyleSample | undefined {
  const key = (x: StyleSample) => `${x.color}|${x.fontFamily}|${x.fontSize}`;
  const best = ranked(texts.map((x) => [key(x), Math.max(1, x.textLength)]))[0];
  return best === undefined ? undefined : texts.find((x) => key(x) === best);
}

function component(x: StyleSample): ComponentStyle {
  const out: ComponentStyle = { background: x.background || "transparent" };
  if (x.color) out.textColor = x.color;
  if (x.borderColor) out.borderColor = x.borderColor;
  out.borderRadius = x.borderRadius;
  out.shadow = x.boxShadow;
  return out;
}

/** The largest unit in 8, 6, 5, 4, 2 that divides at least 90% of the distinct spacing lengths. */
export function baseUnit(lengths: number[]): number | undefined {
  const distinct = [...new Set(lengths.map((n) => Math.round(n)).filter((n) => n > 0))];
  if (distinct.length < 3) return undefined;
  return [8, 6, 5, 4, 2].find((u) => distinct.filter((n) => n % u === 0).length >= 0.9 * distinct.length);
}

function mostCommon<T>(values: T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | undefined;
  let n = 0;
  for (const [v, c] of counts) if (c > n) [best, n] = [v, c];
  return best;
}

/** The object without its undefined fields. */
function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
