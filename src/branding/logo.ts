/**
 * @module branding/logo
 * Which logo candidate of the snapshot is the logo, and the URL `images.logo` gives for it: an image's own URL, or
 * an inline SVG as a `data:image/svg+xml` URL.
 *
 * An SVG inside an HTML page needs no `xmlns`; the same markup as a file (or a `data:` URL) without it is not an
 * SVG image and does not load. The in-page collection now serialises the logo as XML (with its namespaces, the
 * symbols a `<use>` draws and the fills set by CSS); {@link svgDataUrl} still adds a missing `xmlns` so markup
 * from any snapshot loads.
 */
import type { LogoCandidate } from "../engines/browser/branding.ts";

const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";

/** The most likely logo: "logo" in its names, in the header, linking home, near the top. */
export function pickLogo(candidates: LogoCandidate[], pageUrl: string): LogoCandidate | undefined {
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

/** The URL of a logo candidate: an image's URL as is, inline SVG markup as a `data:` URL that loads on its own. */
export function logoUrl(logo: LogoCandidate): string {
  return logo.kind === "svg" ? svgDataUrl(logo.src) : logo.src;
}

/**
 * `data:image/svg+xml` URL of SVG markup, with the `xmlns` (and `xmlns:xlink` when an `xlink:` attribute is used)
 * that a standalone SVG needs added to the root element when missing.
 * @example svgDataUrl('<svg width="8" height="8"><rect width="8" height="8"/></svg>') // data:image/svg+xml;utf8,%3Csvg%20xmlns%3D…
 */
export function svgDataUrl(markup: string): string {
  const open = /^\s*<svg\b[^>]*>/i.exec(markup);
  let svg = markup;
  if (open) {
    let tag = open[0];
    const add: string[] = [];
    if (!/\sxmlns\s*=/.test(tag)) add.push(`xmlns="${SVG_NS}"`);
    if (/\sxlink:[\w-]+\s*=/.test(markup) && !/\sxmlns:xlink\s*=/.test(tag)) add.push(`xmlns:xlink="${XLINK_NS}"`);
    if (add.length > 0) tag = tag.replace(/^(\s*<svg)\b/i, `$1 ${add.join(" ")}`);
    svg = tag + markup.slice(open[0].length);
  }
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

function isHome(href: string, pageUrl: string): boolean {
  try {
    const u = new URL(href);
    return u.origin === new URL(pageUrl).origin && (u.pathname === "/" || u.pathname === "");
  } catch {
    return false;
  }
}
