/**
 * @module documents/media/find-media
 * The primary media source of an HTML page: the first `<audio>` (its `src` or first playable `<source>`),
 * else the first `<video>`, else `og:audio` / `og:video`. Relative URLs resolve against the page's base URL.
 * A page rendered by the browser engine has its media elements in the DOM already, so the same reading works.
 */

function resolve(src: string | null | undefined, base: string): string | undefined {
  if (!src || src.startsWith("blob:") || src.startsWith("data:")) return undefined;
  try {
    const u = new URL(src, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function sourceOf(el: Element, base: string): string | undefined {
  const direct = resolve(el.getAttribute("src"), base);
  if (direct) return direct;
  for (const s of Array.from(el.querySelectorAll("source"))) {
    const url = resolve(s.getAttribute("src"), base);
    if (url) return url;
  }
  return undefined;
}

/**
 * The URL of the page's primary media of `kinds` (audio or video for the `audio` format, video only for `video`), if
 * it has one: the elements first, in the order of `kinds`, then the Open Graph tags.
 */
export function findMediaUrl(dom: Document, baseUrl: string, kinds: readonly ("audio" | "video")[] = ["audio", "video"]): { url: string; kind: "audio" | "video" } | undefined {
  for (const kind of kinds) {
    for (const el of Array.from(dom.querySelectorAll(kind))) {
      const url = sourceOf(el, baseUrl);
      if (url) return { url, kind };
    }
  }
  for (const kind of kinds) {
    const meta = dom.querySelector(`meta[property="og:${kind}"], meta[property="og:${kind}:url"], meta[property="og:${kind}:secure_url"]`);
    const url = resolve(meta?.getAttribute("content"), baseUrl);
    if (url) return { url, kind };
  }
  return undefined;
}
