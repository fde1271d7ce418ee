/**
 * Main-content extraction benchmark: precision/recall/F1 of the markdown our pipeline produces, on the
 * article-extraction and wcxb-dev datasets, plus throughput against turndown.
 *
 *   bun scripts/bench/extraction.ts              # everything
 *   bun scripts/bench/extraction.ts --worst 15   # also list the worst pages (for tuning)
 *   bun scripts/bench/extraction.ts --set wcxb   # one dataset only (article | wcxb)
 *
 * The datasets are read from CRAWLBOX_DATASETS_DIR or ../shared/datasets; the pipeline runs in-process with each
 * page's original URL as base URL. See docs/benchmarks.md for the figures and their meaning.
 */
import TurndownService from "turndown";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { loadArticleExtraction, loadWcxb, type Page } from "./lib/datasets.ts";
import { flattenMarkdown, harmonic, mean, shingleScore, wordScore } from "./lib/metrics.ts";

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const WORST = Number(argValue("--worst") ?? 0);
const ONLY_SET = argValue("--set");
const THROUGHPUT_ROUNDS = 3;

function extract(page: Page, onlyMainContent: boolean): string {
  const doc = parseHtml(page.html);
  const html = cleanHtml(doc, { baseUrl: page.url, onlyMainContent, removeBase64Images: true });
  return htmlToMarkdown(html);
}

const fmt = (x: number): string => x.toFixed(3);
function row(cells: (string | number)[]): string {
  return `| ${cells.map((c) => (typeof c === "number" ? fmt(c) : c)).join(" | ")} |`;
}

function articleExtraction(pages: Page[]): void {
  console.log(`\n## article-extraction (${pages.length} pages; word 4-gram shingles)\n`);
  console.log(row(["onlyMainContent", "precision", "recall", "F1"]));
  console.log(row(["---", "---", "---", "---"]));
  for (const only of [true, false]) {
    const scores = pages.map((p) => ({ page: p, ...shingleScore(flattenMarkdown(extract(p, only)), p.truth) }));
    const precision = mean(scores.map((s) => s.precision));
    const recall = mean(scores.map((s) => s.recall));
    console.log(row([String(only), precision, recall, harmonic(precision, recall)]));
    if (WORST && only) {
      const worst = [...scores].sort((a, b) => harmonic(a.precision ?? 0, a.recall ?? 0) - harmonic(b.precision ?? 0, b.recall ?? 0));
      for (const s of worst.slice(0, WORST)) console.error(`  worst ${s.page.id.slice(0, 12)} P=${fmt(s.precision ?? 0)} R=${fmt(s.recall ?? 0)} ${s.page.url}`);
    }
  }
}

type Triple = { precision: number; recall: number; f1: number };
function average(scores: Triple[]): Triple {
  return { precision: mean(scores.map((s) => s.precision)), recall: mean(scores.map((s) => s.recall)), f1: mean(scores.map((s) => s.f1)) };
}

function wcxb(all: Page[]): void {
  // A page whose ground truth is empty has no defined main content (SPA shells, blocked pages): every extractor
  // scores 0 on it whatever it does, so it is left out of the averages and reported separately.
  const pages = all.filter((p) => p.truth.trim());
  const unscorable = all.filter((p) => !p.truth.trim()).map((p) => `${p.id} (${p.type})`);
  console.log(`\n## wcxb-dev (${pages.length} pages; lower-case word multiset overlap, averaged per page)\n`);
  if (unscorable.length) console.log(`Left out, empty ground truth: ${unscorable.join(", ")}\n`);
  const main = pages.map((p) => ({ page: p, ...wordScore(flattenMarkdown(extract(p, true)), p.truth) }));
  const whole = pages.map((p) => ({ page: p, ...wordScore(flattenMarkdown(extract(p, false)), p.truth) }));
  const types = [...new Set(pages.map((p) => p.type!))].sort();
  console.log(row(["page type", "pages", "P (main)", "R (main)", "F1 (main)", "F1 (whole page)", "R (whole page)"]));
  console.log(row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]));
  for (const type of [...types, "overall"]) {
    const pick = (list: typeof main) => (type === "overall" ? list : list.filter((s) => s.page.type === type));
    const m = average(pick(main));
    const w = average(pick(whole));
    const flag = type !== "overall" && m.f1 < w.f1 ? " (below baseline)" : "";
    console.log(row([type + flag, String(pick(main).length), m.precision, m.recall, m.f1, w.f1, w.recall]));
  }
  if (WORST) {
    for (const s of [...main].sort((a, b) => a.f1 - b.f1).slice(0, WORST)) {
      console.error(`  worst ${s.page.id} ${s.page.type} P=${fmt(s.precision)} R=${fmt(s.recall)} ${s.page.url}`);
    }
  }
}

/**
 * Throughput of our pipeline against turndown. The three contenders run interleaved page by page and each page
 * keeps its fastest of {@link THROUGHPUT_ROUNDS} runs, so load from other processes (CI neighbours, other test
 * suites) hits all of them alike instead of skewing whichever phase it happened to overlap.
 */
function throughput(pages: Page[]): void {
  const totalBytes = pages.reduce((n, p) => n + p.bytes, 0);
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
  turndown.remove(["script", "style", "noscript"]);
  const contenders: [string, (p: Page) => void][] = [
    ["parse+clean+markdown, onlyMainContent:true", (p) => extract(p, true)],
    ["parse+clean+markdown, onlyMainContent:false", (p) => extract(p, false)],
    [
      "turndown (domino parse + convert)",
      (p) => {
        try {
          turndown.turndown(p.html);
        } catch {
          // turndown rejects a few malformed pages; the time spent still counts.
        }
      },
    ],
  ];
  const totals = contenders.map(() => 0);
  for (const page of pages) {
    const best = contenders.map(() => Infinity);
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      contenders.forEach(([, run], i) => {
        const start = performance.now();
        run(page);
        best[i] = Math.min(best[i]!, performance.now() - start);
      });
    }
    best.forEach((ms, i) => (totals[i]! += ms));
  }
  const turndownMs = totals[totals.length - 1]!;
  console.log(`\n## Throughput (${pages.length} pages, ${(totalBytes / 1e6).toFixed(1)} MB of HTML, fastest of ${THROUGHPUT_ROUNDS} per page)\n`);
  console.log(row(["pipeline", "MB/s", "ms/page", "vs turndown"]));
  console.log(row(["---", "---:", "---:", "---:"]));
  contenders.forEach(([name], i) => {
    const ms = totals[i]!;
    console.log(row([name, (totalBytes / 1e6 / (ms / 1000)).toFixed(2), (ms / pages.length).toFixed(2), `${(turndownMs / ms).toFixed(2)}×`]));
  });
}

const article = ONLY_SET && ONLY_SET !== "article" ? [] : loadArticleExtraction();
const wcxbPages = ONLY_SET && ONLY_SET !== "wcxb" ? [] : loadWcxb();
console.log(`# crawlbox main-content extraction benchmark (${new Date().toISOString().slice(0, 10)}, bun ${Bun.version})`);
if (article.length) articleExtraction(article);
if (wcxbPages.length) wcxb(wcxbPages);
if (!args.includes("--no-throughput")) throughput([...article, ...wcxbPages]);
