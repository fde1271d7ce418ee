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
 * A field with no evidence on the page is left out rather than invented, and so is a value the page's own styles do
 * not set (the browser's black text and Times New Roman, evidence.ts).
 */
import type { BrandingSnapshot, LogoCandidate, StyleSample } from "../engines/browser/branding.ts";
import { ownStyle, styleEvidence } from "./evidence.ts";
import { chromaticVote, type ColorRole, isChromatic, luminance, pageBackground, ranked, STATUS_HINTS, TEXT_ROLES, VAR_NAMES, varColor } from "./colors.ts";

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

/** The deterministic profile of a snapshot (no LLM). */
export function deriveBranding(s: BrandingSnapshot): BrandingProfile {
  // Only what the page's own styles set: the browser's defaults (black text, Times New Roman) are not its brand.
  const has = styleEvidence(s);
  const samples = s.samples.map((x) => ownStyle(x, has));
  const of = (kind: StyleSample["kind"]) => samples.filter((x) => x.kind === kind);
  const buttons = of("button");
  const headings = of("heading");
  const links = of("link");
  const body = of("body")[0];
  const texts = of("text");

  const background = pageBackground(s);
  const colors: Partial<Record<ColorRole, string>> = { background };
  const fromVar = (role: ColorRole) => varColor(s, VAR_NAMES[role] ?? [], !TEXT_ROLES.has(role));

  colors.primary =
    fromVar("primary") ??
    ranked(buttons.filter((b) => isChromatic(b.background)).map((b) => [b.background, b.area * (/primary|cta/.test(b.hints) ? 2 : 1)]))[0] ??
    ranked(links.filter((l) => isChromatic(l.color)).map((l) => [l.color, 1]))[0] ??
    (s.themeColor && isChromatic(s.themeColor) ? s.themeColor : undefined) ??
    ranked(headings.filter((h) => isChromatic(h.color)).map((h) => [h.color, h.area]))[0];
  const btnPrimary = pickPrimaryButton(buttons, colors.primary);
  const btnSecondary = pickSecondaryButton(buttons, btnPrimary);
  const pool = chromaticVote(samples).filter((c) => c !== colors.primary);
  colors.secondary =
    fromVar("secondary") ??
    (btnSecondary ? [btnSecondary.background, btnSecondary.borderColor, btnSecondary.color].find((c) => isChromatic(c) && c !== colors.primary) : undefined) ??
    pool[0];
  colors.accent = fromVar("accent") ?? pool.find((c) => c !== colors.secondary);

  const mainText = dominantText(texts) ?? body;
  colors.textPrimary = fromVar("textPrimary") ?? (mainText?.color || (has("color") ? s.bodyColor : "") || undefined);
  colors.link = fromVar("link") ?? ranked(links.filter((l) => l.color).map((l) => [l.color, 1]))[0];
  colors.textSecondary =
    fromVar("textSecondary") ??
    ranked([...texts, ...of("small")].filter((t) => t.color && t.color !== colors.textPrimary && t.color !== colors.link).map((t) => [t.color, t.textLength]))[0];
  for (const role of ["success", "warning", "error"] as const) {
    colors[role] =
      fromVar(role) ??
      of("status")
        .filter((x) => STATUS_HINTS[role].test(x.hints))
        .flatMap((x) => [x.background, x.color])
        .find(isChromatic);
  }

  const stack = (sample: StyleSample | undefined) => {
    const names = sample ? fontStack(sample.fontFamily) : [];
    return names.length > 0 ? names : undefined;
  };
  const h = (level: number) => headings.find((x) => x.level === level);
  const headingSample = h(1) ?? headings[0];
  const codeSample = of("code")[0];
  const stacks = { primary: stack(mainText), heading: stack(headingSample), code: stack(codeSample) };
  const fonts: BrandingProfile["fonts"] = [];
  for (const role of ["primary", "heading", "code"] as const) {
    const family = stacks[role]?.[0];
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
    images.logo = logo.kind === "svg" ? `data:image/svg+xml;utf8,${encodeURIComponent(logo.src)}` : logo.src;
    if (logo.href) images.logoHref = logo.href;
    if (logo.alt) images.logoAlt = logo.alt;
  }
  if (s.favicon) images.favicon = s.favicon;
  if (s.ogImage) images.ogImage = s.ogImage;

  const profile: BrandingProfile = {
    colorScheme: luminance(background) < 0.4 ? "dark" : "light",
    colors: prune(colors),
    fonts,
    typography: {
      fontFamilies: prune({ primary: stacks.primary?.[0], heading: stacks.heading?.[0], code: stacks.code?.[0] }),
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
  const brandName = s.siteName ?? s.applicationName ?? (logo?.alt ? nameFromLogoAlt(logo.alt) : undefined) ?? nameFromTitle(s.title);
  if (brandName) profile.brandName = brandName;
  if (images.logo) profile.logo = images.logo;
  return profile;
}

function pickPrimaryButton(buttons: StyleSample[], primary: string | undefined): StyleSample | undefined {
  return (
    buttons.find((b) => /primary|cta/.test(b.hints) && !/secondary/.test(b.hints)) ??
    buttons.find((b) => primary !== undefined && b.background === primary) ??
    [...buttons].filter((b) => isChromatic(b.background)).sort((a, b) => b.area - a.area)[0] ??
    buttons[0]
  );
}

function pickSecondaryButton(buttons: StyleSample[], primary: StyleSample | undefined): StyleSample | undefined {
  const others = buttons.filter((b) => b !== primary);
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

/** The most likely logo: "logo" in its names, in the header, linking home, near the top. */
function pickLogo(candidates: LogoCandidate[], pageUrl: string): LogoCandidate | undefined {
  let best: LogoCandidate | undefined;
  let bestScore = 2;
  for (const c of candidates) {
    let score = 0;
    if (/logo|brand/.test(c.hints) || /logo/i.test(c.alt)) score += 3;
    if (c.inHeader) score += 2;
    if (c.href && isHome(c.href, pageUrl)) score += 2;
    if (c.top < 200) score += 1;
    if (c.width > 600 || c.height > 300) score -= 3;
    if (score > bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

function isHome(href: string, pageUrl: string): boolean {
  try {
    const u = new URL(href);
    return u.origin === new URL(pageUrl).origin && (u.pathname === "/" || u.pathname === "");
  } catch {
    return false;
  }
}

/** `Pricing | Acme` → `Acme`: the shortest part of a title split at the usual separators. */
export function nameFromTitle(title: string): string | undefined {
  const parts = title.split(/\s+[|–—·:-]\s+/).map((p) => p.trim()).filter(Boolean);
  return parts.sort((a, b) => a.length - b.length)[0];
}

/**
 * The brand a logo's alt text names: "Acme logo", "Logo of Acme" and "Acme – Home" are Acme (the alt describes the
 * picture, and the name came back as "Acme logo"); a bare "Logo" names nothing. Words inside a name stay.
 */
export function nameFromLogoAlt(alt: string): string | undefined {
  const name = alt
    .trim()
    .replace(/^(?:the\s+)?(?:company\s+)?(?:logo(?:type)?|brand\s*mark)\b(?:\s+(?:of|for)\b)?[\s:–—-]*/i, "")
    .replace(/(?:^|[\s|–—·:-]+)(?:(?:company\s+)?logo(?:type)?|brand\s*mark|home\s*page|homepage|home|icon)$/i, "")
    .trim();
  return name || undefined;
}

/** A computed `font-family` list as names without quotes. */
export function fontStack(fontFamily: string): string[] {
  return (fontFamily.match(/"[^"]*"|'[^']*'|[^,]+/g) ?? []).map((f) => f.trim().replace(/^["']|["']$/g, "").trim()).filter(Boolean);
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
