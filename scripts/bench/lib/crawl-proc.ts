/**
 * @module bench/lib/crawl-proc
 * Process plumbing for the crawl benchmark: memory of a process from `/proc/<pid>/status` (Linux), a sampler
 * that keeps the largest RSS seen, and a line reader for a child's stdout.
 */

/** Resident memory of a process, in KiB: now (`VmRSS`) and its high-water mark (`VmHWM`). */
export interface Mem {
  rssKb: number;
  hwmKb: number;
}

/** Reads `/proc/<pid>/status`; zeros when the process is gone. */
export async function readMem(pid: number): Promise<Mem> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text();
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM") };
  } catch {
    return { rssKb: 0, hwmKb: 0 };
  }
}

/** CPU time (user + system, all threads) a process has used so far, in ms, from `/proc/<pid>/stat`; 0 when gone. */
export async function readCpuMs(pid: number): Promise<number> {
  try {
    const stat = await Bun.file(`/proc/${pid}/stat`).text();
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th (clock ticks, 100 Hz).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; `stop()` returns the largest RSS seen (KiB). */
export function sampleRss(pid: number, intervalMs = 50): { stop(): number } {
  let max = 0;
  const timer = setInterval(async () => {
    const m = await readMem(pid);
    if (m.rssKb > max) max = m.rssKb;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return max;
    },
  };
}

/** Calls `onLine` for each line of `stream`; resolves at its end. */
export async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void | Promise<void>): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      await onLine(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  }
  if (buf) await onLine(buf);
}
