/**
 * Egress micro-benchmark: what the HTTP engine (egress gate included) costs per page over a bare `fetch`.
 *
 * A separate process serves one ~90 KB UTF-8 HTML page over http and https (the test fixture certificate), so
 * serving does not share this event loop. Every variant runs in the same process, interleaved in rounds of 10
 * fetches, because the machine is shared and noisy: compare ratios, not absolute times.
 *
 * Variants:
 * - `direct`        `fetch(url)` + `text()`: the bare loop;
 * - `engine`        `createHttpEngine({ gate })`, keep-alive proxy (the current default);
 * - `engine-close`  the same engine with `keepAlive: false`: one request per proxy connection, as before;
 * - `baseline`      engine and gate imported from another source tree (`--baseline DIR`, a directory holding an
 *                   older `src/`, e.g. `git archive <rev> src | tar -x -C DIR`; symlink `node_modules` into it);
 * and the same for https (`skipTlsVerification`, CONNECT tunnel through the gate).
 *
 *   bun scripts/bench/egress.ts [--fetches 400] [--baseline DIR]
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

if (process.argv.includes("--serve")) {
  const dir = join(ROOT, "test", "fixtures", "tls");
  const tls = { cert: await Bun.file(join(dir, "cert.pem")).text(), key: await Bun.file(join(dir, "key.pem")).text() };
  const para = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit — ünïcödé, 日本語, ελληνικά.</p>\n";
  const html = new TextEncoder().encode(
    `<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body>${para.repeat(900)}</body></html>`,
  );
  const headers = { "content-type": "text/html; charset=utf-8" };
  const plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(html, { headers }) });
  const secure = Bun.serve({ hostname: "127.0.0.1", port: 0, tls, fetch: () => new Response(html, { headers }) });
  console.log(`PORTS ${plain.port} ${secure.port} BYTES ${html.byteLength}`);
  await new Promise(() => {});
}

type Gate = { proxyUrl: string; close(): Promise<void> };
type Engine = { fetch(r: object): Promise<{ text?: string; body: Uint8Array }> };
type Modules = {
  createEgressGate(o: object): Promise<Gate>;
  createHttpEngine(o: object): Engine;
};

async function load(srcRoot: string): Promise<Modules> {
  const egress = await import(join(srcRoot, "src", "egress", "index.ts"));
  const http = await import(join(srcRoot, "src", "engines", "http", "index.ts"));
  return { createEgressGate: egress.createEgressGate, createHttpEngine: http.createHttpEngine };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const fetches = Number(arg("fetches") ?? 400);
  if (!(fetches >= 300)) throw new Error("--fetches must be at least 300");
  const server = Bun.spawn(["bun", import.meta.path, "--serve"], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  try {
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!/PORTS \d+ \d+ BYTES \d+/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`page server exited: ${out}`);
      out += new TextDecoder().decode(value);
    }
    const [, httpPort, httpsPort, bytes] = /PORTS (\d+) (\d+) BYTES (\d+)/.exec(out)!.map(Number);
    const httpUrl = `http://127.0.0.1:${httpPort}/page`;
    const httpsUrl = `https://127.0.0.1:${httpsPort}/page`;

    const current = await load(ROOT);
    const gates: Gate[] = [];
    const engineOf = async (m: Modules, gateOptions: object) => {
      const gate = await m.createEgressGate({ allowPrivateNetwork: true, ...gateOptions });
      gates.push(gate);
      return m.createHttpEngine({ gate });
    };
    const engine = await engineOf(current, {});
    const engineClose = await engineOf(current, { keepAlive: false });
    const baselineDir = arg("baseline");
    const baseline = baselineDir ? await engineOf(await load(baselineDir), {}) : undefined;

    const page = (url: string, skipTlsVerification = false) => ({ url, timeoutMs: 10_000, maxBodyBytes: 25 << 20, skipTlsVerification });
    const checkPage = (p: { text?: string; body: Uint8Array }) => {
      if (p.body.byteLength !== bytes) throw new Error(`short page: ${p.body.byteLength} of ${bytes}`);
    };
    type Variant = [name: string, run: () => Promise<unknown>];
    const variants: Variant[] = [];
    for (const [scheme, url, skip] of [
      ["http", httpUrl, false],
      ["https", httpsUrl, true],
    ] as const) {
      const tlsOptions = skip ? { tls: { rejectUnauthorized: false } } : {};
      variants.push([`${scheme} direct`, async () => (await fetch(url, tlsOptions)).text()]);
      variants.push([`${scheme} engine`, async () => checkPage(await engine.fetch(page(url, skip)))]);
      variants.push([`${scheme} engine-close`, async () => checkPage(await engineClose.fetch(page(url, skip)))]);
      if (baseline) variants.push([`${scheme} baseline`, async () => checkPage(await baseline.fetch(page(url, skip)))]);
    }

    const warmup = 30;
    const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    for (const [, run] of variants) for (let i = 0; i < warmup; i++) await run();
    for (let done = 0; done < fetches; done += 10) {
      for (const [name, run] of variants) {
        for (let i = 0; i < 10; i++) {
          const t = performance.now();
          await run();
          times.get(name)!.push(performance.now() - t);
        }
      }
    }

    console.log(`egress bench: ${bytes} B page, ${fetches} fetches per variant, interleaved in rounds of 10 (bun ${Bun.version})`);
    console.log(`${"variant".padEnd(20)}${"p50 ms".padStart(9)}${"mean ms".padStart(9)}${"p95 ms".padStart(9)}${"p50 ×direct".padStart(13)}${"mean ×direct".padStart(14)}${"p50 +ms".padStart(9)}`);
    for (const scheme of ["http", "https"]) {
      const direct = times.get(`${scheme} direct`)!.toSorted((a, b) => a - b);
      const dP50 = percentile(direct, 50);
      const dMean = direct.reduce((a, b) => a + b, 0) / direct.length;
      for (const [name] of variants.filter(([n]) => n.startsWith(`${scheme} `))) {
        const xs = times.get(name)!.toSorted((a, b) => a - b);
        const p50 = percentile(xs, 50);
        const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
        console.log(
          `${name.padEnd(20)}${p50.toFixed(3).padStart(9)}${mean.toFixed(3).padStart(9)}${percentile(xs, 95).toFixed(3).padStart(9)}` +
            `${(p50 / dP50).toFixed(2).padStart(13)}${(mean / dMean).toFixed(2).padStart(14)}${(p50 - dP50).toFixed(3).padStart(9)}`,
        );
      }
    }
    for (const g of gates) await g.close();
  } finally {
    server.kill();
  }
}

await main();
