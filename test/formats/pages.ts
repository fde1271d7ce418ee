/**
 * A tiny mutable fixture site for LLM and change-tracking tests: tests set each path's status and HTML, and
 * change them between scrapes. Served by Bun.serve on 127.0.0.1.
 */
export interface PageSite {
  url: string;
  set(path: string, html: string, status?: number, contentType?: string): void;
  /** The next `times` requests of `path` answer `status` with an error page; then its page is served again. */
  failNext(path: string, status: number, times?: number): void;
  hits: Map<string, number>;
  stop(): void;
}

export function startPageSite(): PageSite {
  const pages = new Map<string, { html: string; status: number; contentType: string }>();
  const hits = new Map<string, number>();
  const failures = new Map<string, { status: number; times: number }>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const failure = failures.get(path);
      if (failure && failure.times-- > 0) {
        return new Response(`<html><body><h1>Error ${failure.status}</h1><p>Try again later.</p></body></html>`, { status: failure.status, headers: { "content-type": "text/html" } });
      }
      const p = pages.get(path);
      if (!p) return new Response("<html><body><h1>Not found</h1></body></html>", { status: 404, headers: { "content-type": "text/html" } });
      return new Response(p.html, { status: p.status, headers: { "content-type": p.contentType } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    set(path, html, status = 200, contentType = "text/html; charset=utf-8") {
      pages.set(path, { html, status, contentType });
    },
    failNext(path, status, times = 1) {
      failures.set(path, { status, times });
    },
    hits,
    stop: () => server.stop(true),
  };
}

/** A simple HTML page with a title and paragraphs in <main>. */
export function page(title: string, ...paragraphs: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("")}</main></body></html>`;
}
