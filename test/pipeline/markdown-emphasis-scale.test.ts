import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

/**
 * Emphasis used to read the character before each element with `charAt` on the whole output so far, which made
 * JavaScriptCore flatten the output string once per `<b>`/`<em>`/`<del>`: conversion time grew with the square of
 * the page (40,000 `<b>` took 1.9 s, 80,000 took 6.4 s).
 *
 * Not a wall-clock limit: the same page shape is timed at n and 4n paragraphs (1 KB of text and one emphasis
 * element each). Linear work takes about 4 times as long (4.3-5.0 measured); quadratic work about 16 times (12.9
 * measured with the old code). CPU time, not wall-clock time, is compared, and load on the machine still only
 * makes a run slower, never faster, so the smaller page keeps its best of five runs and the larger one passes as
 * soon as one of up to three runs is fast enough.
 */
const FILLER = Array.from({ length: 200 }, (_, i) => `w${i % 97}rd`).join(" ").slice(0, 1000);
const TAGS = ["b", "em", "del"] as const;

function page(paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) => {
    const tag = TAGS[i % TAGS.length];
    return `<p>${FILLER} ${i} <${tag}>x${i}</${tag}> end.</p>`;
  }).join("");
}

/**
 * This thread's CPU time for one conversion, in ms: unlike wall-clock time, it leaves out the time other processes
 * run, and unlike the process's CPU time, the garbage collector's helper threads.
 */
function timeOnce(html: string): number {
  Bun.gc(true);
  const started = process.threadCpuUsage();
  htmlToMarkdown(html);
  const used = process.threadCpuUsage(started);
  return (used.user + used.system) / 1000;
}

describe("htmlToMarkdown: emphasis at scale", () => {
  test("time grows linearly with the number of emphasis elements (n vs 4n paragraphs)", () => {
    const N = 2_000;
    const RATIO_BOUND = 8;
    const small = page(N);
    const large = page(4 * N);

    // The shape converts as expected, so the timing below measures the emphasis path.
    const sample = htmlToMarkdown(page(3));
    expect(sample).toContain(" 0 **x0** end.");
    expect(sample).toContain(" 1 _x1_ end.");
    expect(sample).toContain(" 2 ~~x2~~ end.");

    timeOnce(small); // warm-up
    let smallBest = Infinity;
    for (let run = 0; run < 5; run++) smallBest = Math.min(smallBest, timeOnce(small));
    const largeTimes: number[] = [];
    for (let run = 0; run < 3; run++) {
      largeTimes.push(timeOnce(large));
      if (Math.min(...largeTimes) / smallBest < RATIO_BOUND) break;
    }
    const ratio = Math.min(...largeTimes) / smallBest;
    const detail = `n=${N}: ${smallBest.toFixed(0)} ms; 4n: ${largeTimes.map((t) => t.toFixed(0)).join(", ")} ms; ratio ${ratio.toFixed(1)}`;
    expect(ratio < RATIO_BOUND ? "linear" : detail).toBe("linear");
  }, 60_000);
});
