/**
 * @module branding/observations
 * What the in-page collection (src/engines/browser/branding-in-page.ts) observes beyond the snapshot's base shape
 * (src/engines/browser/branding.ts): where each sampled element sits (a consent banner, a dialog, a fixed bar, the
 * page's header or footer, running text) and the background of a wrapper that paints the page when `body` and
 * `html` paint nothing. Every field is optional, so a snapshot without them (a hand-written one in a test, one
 * collected before they existed) derives as it did; the derivation (derive.ts, colors.ts) only ever lowers a
 * sample's weight or fills a missing background from them.
 */
import type { BrandingSnapshot, StyleSample } from "../engines/browser/branding.ts";

/**
 * The layer an element is drawn in, when it is not the page itself:
 * - `consent`: a cookie or consent banner (an ancestor's `id`/`class` says cookie/consent/gdpr, or a dialog or fixed
 *   bar whose text is about cookies). Its buttons are the consent tool's colours, not the site's (a OneTrust
 *   "Accept" button was reported as the primary colour), so it is not a sample at all.
 * - `dialog`: inside `[role=dialog]`, `[role=alertdialog]`, `[aria-modal=true]` or an open `<dialog>`.
 * - `fixed`: inside a `position: fixed`/`sticky` box that is not the page's top bar (a chat launcher, a promo bar
 *   at the bottom). Dialogs and fixed boxes are the site's own, so their samples count, at a small weight.
 */
export type OverlayKind = "consent" | "dialog" | "fixed";

/** A {@link StyleSample} with where its element sits. */
export interface PlacedSample extends StyleSample {
  /** Absent: the element is part of the page. */
  overlay?: OverlayKind;
  /** Inside the page's `header`, `nav`, `footer`, `aside` or their ARIA roles: navigation, not content. */
  chrome?: boolean;
  /** A link inside running text (its block holds more text than the link): how the site styles a link. */
  inline?: boolean;
}

/** A {@link BrandingSnapshot} whose samples may say where they sit. */
export interface PlacedSnapshot extends BrandingSnapshot {
  samples: PlacedSample[];
  /**
   * When neither `body` nor `html` paints a background: the background of the largest element under the
   * viewport's centre that spans the viewport's width and most of the document's height (a `#__next` or `#app`
   * wrapper with `background: #020617`), else absent.
   */
  wrapperBackground?: string;
}

/** How much a sample in each layer counts towards a colour or a component (a consent banner not at all). */
export const OVERLAY_WEIGHT: Record<OverlayKind, number> = { consent: 0, dialog: 0.1, fixed: 0.1 };
/** How much a sample in the header, nav or footer counts against one in the content. */
export const CHROME_WEIGHT = 0.25;
/** How much more a link in running text counts than a standalone one. */
export const INLINE_LINK_WEIGHT = 3;

/** How much a sample counts for where it is drawn: 1 in the page, less in a dialog or fixed box, 0 in a consent banner. */
export function overlayWeight(x: PlacedSample): number {
  return x.overlay ? OVERLAY_WEIGHT[x.overlay] : 1;
}

/**
 * How much a link's colour counts towards "the link colour": its text length (a link without text, such as a logo
 * `<a href="/"><img></a>`, shows no link colour), more in running text, less in navigation and overlays. A
 * navbar brand link in white on a dark bar outweighed the content's links only by coming first.
 */
export function linkWeight(x: PlacedSample): number {
  return x.textLength * overlayWeight(x) * (x.chrome ? CHROME_WEIGHT : 1) * (x.inline ? INLINE_LINK_WEIGHT : 1);
}
