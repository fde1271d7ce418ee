/**
 * @module log
 * A small levelled logger writing one line per event to stderr (stdout is kept clean for `crawlbox scrape`).
 * Never pass it raw API keys or page bodies.
 */

/** Log levels, least to most severe. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A logger bound to a minimum level. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Creates a logger that drops events below `level`; `sink` defaults to stderr. */
export function createLogger(level: LogLevel, sink: (line: string) => void = (l) => process.stderr.write(l + "\n")): Logger {
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < RANK[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? " " + JSON.stringify(fields) : "";
    sink(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${msg}${extra}`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** A logger that drops everything (tests, `crawlbox scrape`). */
export const silentLogger: Logger = createLogger("error", () => {});
