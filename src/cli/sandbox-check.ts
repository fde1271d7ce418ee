/**
 * @module cli/sandbox-check
 * `CRAWLBOX_CHROMIUM_SANDBOX=on` is a promise that every page is rendered inside Chromium's own OS sandbox. When it
 * cannot be kept, the command refuses to start (exit 78, like any other configuration error) and says why, rather
 * than starting and answering every browser scrape with a 503 that says "Target closed". Root is known at once
 * (Chromium has no sandbox for root); for another user the server asks Chromium itself once, before it listens.
 */
import { ConfigError, type Config } from "../config.ts";
import { findChromium, sandboxFailure } from "../engines/browser/chromium.ts";

/** What the refusal tells the operator to do. */
const ADVICE = "run crawlbox as a user other than root (as docs/security.md says), or set CRAWLBOX_CHROMIUM_SANDBOX=auto or off";

/**
 * Throws {@link ConfigError} when `config` asks for Chromium's sandbox (`on`) and this process cannot have it: it
 * runs as root (`uid` 0), or, with `probe` (the server; a one-off `crawlbox scrape` skips the extra Chromium start),
 * Chromium says it cannot start with it. Nothing is checked when the browser engine is off or Chromium is absent.
 */
export async function assertSandboxHonoured(config: Config, options: { probe: boolean; uid?: number }): Promise<void> {
  if (!config.browserEnabled || config.chromiumSandbox !== "on") return;
  const executablePath = findChromium(config.chromePath);
  if (!executablePath) return;
  const uid = options.uid ?? process.getuid?.();
  if (uid === 0) {
    throw new ConfigError([`CRAWLBOX_CHROMIUM_SANDBOX=on cannot be honoured: crawlbox runs as root (uid 0), and Chromium has no sandbox for root; ${ADVICE}`]);
  }
  if (!options.probe) return;
  const reason = await sandboxFailure(executablePath);
  if (reason !== undefined) {
    throw new ConfigError([`CRAWLBOX_CHROMIUM_SANDBOX=on cannot be honoured: Chromium cannot start with its own sandbox here (${reason}); enable unprivileged user namespaces, or set CRAWLBOX_CHROMIUM_SANDBOX=auto or off`]);
  }
}
