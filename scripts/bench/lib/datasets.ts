/**
 * @module bench/lib/datasets
 * Loaders for the shared extraction datasets (see shared/datasets/README.md). Pages are read from disk and
 * decoded in memory; nothing is fetched.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { decodeHtml } from "./decode.ts";

/** One benchmark page. */
export interface Page {
  id: string;
  /** The page's original URL, used as the base URL for the pipeline. */
  url: string;
  html: string;
  /** Size of the stored (decompressed) HTML in bytes. */
  bytes: number;
  /** Ground-truth main content. */
  truth: string;
  /** wcxb page type (article, forum, …); undefined for article-extraction. */
  type?: string;
}

/** `CRAWLBOX_DATASETS_DIR`, else `../shared/datasets` next to the repository; exits saying so when it is not there. */
export function datasetsDir(): string {
  const dir = process.env.CRAWLBOX_DATASETS_DIR ?? resolve(import.meta.dir, "../../../../shared/datasets");
  if (!existsSync(join(dir, "article-extraction"))) {
    // A clone elsewhere than beside shared/ got a raw ENOENT stack trace for ground-truth.json.
    process.stderr.write(`The benchmark datasets are not at ${dir}: set CRAWLBOX_DATASETS_DIR to the folder holding article-extraction/ and wcxb-dev/.\n`);
    process.exit(2);
  }
  return dir;
}

function readHtml(file: string): { html: string; bytes: number } {
  const raw = Bun.gunzipSync(readFileSync(file));
  return { html: decodeHtml(raw), bytes: raw.byteLength };
}

/** article-extraction: 181 news and blog articles. */
export function loadArticleExtraction(dir = join(datasetsDir(), "article-extraction")): Page[] {
  const truth = JSON.parse(readFileSync(join(dir, "ground-truth.json"), "utf8")) as Record<
    string,
    { articleBody?: string; url: string }
  >;
  return Object.entries(truth)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, entry]) => ({ id, url: entry.url, truth: entry.articleBody ?? "", ...readHtml(join(dir, "html", `${id}.html.gz`)) }));
}

/** wcxb-dev: 501 pages of seven types. */
export function loadWcxb(dir = join(datasetsDir(), "wcxb-dev")): Page[] {
  const metadata = JSON.parse(readFileSync(join(dir, "metadata.json"), "utf8")) as {
    files: Record<string, { page_type: string }>;
  };
  const ids = readdirSync(join(dir, "html"))
    .filter((f) => f.endsWith(".html.gz"))
    .map((f) => f.slice(0, -".html.gz".length))
    .sort();
  return ids.map((id) => {
    const gt = JSON.parse(readFileSync(join(dir, "ground-truth", `${id}.json`), "utf8")) as {
      url: string;
      ground_truth: { main_content?: string };
    };
    return {
      id,
      url: gt.url,
      truth: gt.ground_truth.main_content ?? "",
      type: metadata.files[id]?.page_type ?? "unknown",
      ...readHtml(join(dir, "html", `${id}.html.gz`)),
    };
  });
}
