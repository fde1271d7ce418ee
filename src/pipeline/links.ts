/**
 * @module pipeline/links
 * The `links` and `images` formats: every link or image of the page, absolute and deduplicated in document
 * order. Links keep http(s) and mailto targets (as upstream); `javascript:` and same-page `#fragment` links are
 * dropped because a client cannot follow them.
 */
import { absoluteUrl } from "./url.ts";

/** Absolute, deduplicated link targets of `doc`. */
export function extractLinks(doc: Document, baseUrl: string): string[] {
  const out = new Set<string>();
  for (const a of doc.querySelectorAll("a[href], area[href]")) {
    const href = (a.getAttribute("href") ?? "").trim();
    if (href === "" || href.startsWith("#")) continue;
    if (/^mailto:/i.test(href)) {
      out.add(href);
      continue;
    }
    const abs = absoluteUrl(href, baseUrl);
    if (abs && /^https?:/i.test(abs)) out.add(abs);
  }
  return [...out];
}

/** Largest candidate of a `srcset` (by width or density descriptor), or its first entry. */
function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(/,\s+(?=\S)/)
    .map((part) => part.trim().split(/\s+/)[0] ?? "")
    .filter((u) => u !== "");
}

/** Absolute, deduplicated image URLs of `doc` (img src/srcset, picture sources, og:image, video posters). */
export function extractImages(doc: Document, baseUrl: string, includeDataUrls: boolean): string[] {
  const out = new Set<string>();
  const push = (raw: string | null | undefined) => {
    if (!raw) return;
    const v = raw.trim();
    if (v.startsWith("data:")) {
      if (includeDataUrls) out.add(v);
      return;
    }
    const abs = absoluteUrl(v, baseUrl);
    if (abs && /^https?:/i.test(abs)) out.add(abs);
  };
  for (const img of doc.querySelectorAll("img")) {
    push(img.getAttribute("src"));
    push(img.getAttribute("data-src"));
    const srcset = img.getAttribute("srcset");
    if (srcset) for (const u of srcsetUrls(srcset)) push(u);
  }
  for (const source of doc.querySelectorAll("picture source[srcset]")) {
    for (const u of srcsetUrls(source.getAttribute("srcset") ?? "")) push(u);
  }
  for (const video of doc.querySelectorAll("video[poster]")) push(video.getAttribute("poster"));
  for (const m of doc.querySelectorAll('meta[property="og:image"], meta[name="twitter:image"]')) push(m.getAttribute("content"));
  return [...out];
}
