/**
 * @module branding/evidence
 * Which of a page's computed styles are its own: a page that sets no colour shows the browser's black text, one that
 * sets no font family shows Times New Roman, and both were reported as the brand's (`textPrimary: #000000`, `fonts:
 * [{family: "Times New Roman"}]`), against "a field the page gives no evidence for is left out" (docs/browser.md).
 *
 * The browser's snapshot lists every property some style of the page sets, anywhere
 * (`BrandingSnapshot.declaredProperties`: its style sheets, `style` attributes, presentational attributes). A style
 * sample's value for a property the page sets nowhere is the browser's default, and is not used. A page that sets
 * black text or Times itself keeps them. The test is per page, not per element: a page that colours only its links
 * still has its (default) body text colour reported. Without the list (a cross-origin sheet, whose rules cannot be
 * read) every value is kept, as before.
 */
import type { BrandingSnapshot, StyleSample } from "../engines/browser/branding.ts";

/** Groups of properties the derivation reads. */
export type StyleGroup = "color" | "background" | "border" | "radius" | "shadow" | "fontFamily" | "fontSize" | "fontWeight" | "lineHeight" | "padding" | "margin";

/** The longhands of each group (`padding: 8px` is `padding-top`, … in the list; `font: …` is `font-family`, …). */
const GROUP_PROPERTIES: Record<StyleGroup, RegExp> = {
  color: /^color$/,
  background: /^background-color$/,
  border: /^border-(?:[a-z-]+-)?color$/,
  radius: /^border-(?:[a-z-]+-)?radius$/,
  shadow: /^box-shadow$/,
  fontFamily: /^font-family$/,
  fontSize: /^font-size$/,
  fontWeight: /^font-weight$/,
  lineHeight: /^line-height$/,
  padding: /^padding-/,
  margin: /^margin-/,
};

/** Whether the page sets some property of a group anywhere (always true when that is not known). */
export type StyleEvidence = (group: StyleGroup) => boolean;

/** The {@link StyleEvidence} of a snapshot. */
export function styleEvidence(s: BrandingSnapshot): StyleEvidence {
  const declared = s.declaredProperties;
  if (!declared) return () => true;
  const groups = new Set<StyleGroup>();
  for (const [group, pattern] of Object.entries(GROUP_PROPERTIES) as [StyleGroup, RegExp][]) {
    if (declared.some((p) => pattern.test(p))) groups.add(group);
  }
  return (group) => groups.has(group);
}

/** `x` with the colours and font family the page sets nowhere blanked (`""`: no value, as a transparent colour is). */
export function ownStyle<T extends StyleSample>(x: T, has: StyleEvidence): T {
  return {
    ...x,
    color: has("color") ? x.color : "",
    background: has("background") ? x.background : "",
    borderColor: has("border") ? x.borderColor : "",
    fontFamily: has("fontFamily") ? x.fontFamily : "",
  };
}
