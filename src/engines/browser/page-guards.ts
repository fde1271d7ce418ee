/**
 * @module engines/browser/page-guards
 * What a scraped page may not do to the shared browser, attached once to every page the pool creates (a page
 * serves several leases when reused, so per-scrape listeners would miss the gaps between them):
 *
 * - JavaScript dialogs (`alert`, `confirm`, `prompt`) block the page's script, its `load` event and every later
 *   evaluation until answered: a page showing one would hold its browser slot until the scrape's timeout. They are
 *   dismissed at once (as a user pressing Cancel), and `beforeunload` is accepted so the page can always be left.
 * - Popups: a new page in the context (a `click` action on a `target=_blank` link, `window.open` in a script run
 *   by an action) is closed as soon as it appears. The scrape reads the page it loaded; each popup would be one
 *   more renderer process, and nothing bounded how many a page opened.
 */
import type { BrowserContext, Dialog, Page, Target } from "puppeteer-core";

/** Attaches the guards to `page`, the one page of `context` that scrapes use. */
export function guardPage(context: BrowserContext, page: Page): void {
  page.on("dialog", (dialog: Dialog) => {
    const answer = dialog.type() === "beforeunload" ? dialog.accept() : dialog.dismiss();
    answer.catch(() => {}); // the page may already be gone
  });
  const own = page.target();
  context.on("targetcreated", (target: Target) => {
    if (target === own || target.type() !== "page") return;
    void target
      .page()
      .then((popup) => popup?.close())
      .catch(() => {});
  });
}
