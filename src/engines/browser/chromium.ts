/**
 * @module engines/browser/chromium
 * Finding and launching Debian's Chromium through puppeteer-core, and closing it without leaving processes
 * behind (stack-notes.md: `browser.close()` can hang, so it is raced against a timeout and then SIGKILLed), nor
 * the ProcessSingleton directory that a SIGKILLed Chromium cannot remove itself, nor its profile: each Chromium has
 * one of crawlbox's own, removed when it exits, and those a killed server left are removed at the next launch
 * (singleton-dir.ts).
 *
 * Every Chromium crawlbox starts uses the egress gate as its only way out: `--proxy-server=<gate>` plus
 * `--proxy-bypass-list=<-loopback>`, which removes Chromium's implicit "localhost goes direct" rule, so page
 * loads, subresources, `fetch()` from page scripts and `executeJavascript` all pass the gate (reliability.md B1).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";
import "./cdp-guard.ts";
import { newProfileDir, rememberSingletonDir, removeProfileDir, removeSingletonDir, singletonDirOf, sweepStaleProfileRoots } from "./singleton-dir.ts";

/** Where Debian and derivatives install Chromium (the wrapper script first, then the real binary). */
export const CHROMIUM_LOCATIONS = [
  "/usr/bin/chromium",
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
] as const;

/**
 * Launch flags for a closed network (stack-notes.md). Without Chromium's own sandbox (as root, where it cannot have
 * one) {@link NO_SANDBOX_ARG} is added: see {@link LaunchOptions.sandbox}.
 */
export const CHROMIUM_ARGS = [
  "--headless=new",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-extensions",
  "--disable-breakpad",
  "--disable-domain-reliability",
  "--metrics-recording-only",
  "--mute-audio",
  "--hide-scrollbars",
  "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,DialMediaRouteProvider," +
    // CPU per page (scripts/bench/browser.ts): no new RenderFrameHost per cross-document navigation, no back/forward
    // cache and its proactive BrowsingInstance swaps (each spawned a renderer per navigation), no spare renderer.
    "RenderDocument,BackForwardCache,ProactivelySwapBrowsingInstance,SpareRendererForSitePerProcess",
  // WebRTC's UDP (STUN/TURN, ICE candidates) does not go through --proxy-server, so a page's script could reach any
  // address past the egress gate: only proxied traffic is allowed, i.e. no UDP at all (reliability.md B1).
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  // Chromium resolves nothing itself: every request goes to the gate by name, and the names it would still look up
  // with the host's resolver (a WebRTC TURN server's, from any page's script) would reach the network past the gate
  // (a page could send data out in DNS names). Only the gate's loopback address is left to it.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
  // The stealth measures of `proxy: "enhanced"` start here: no automation infobar or blink flag.
  "--disable-blink-features=AutomationControlled",
] as const;

/**
 * Puppeteer's default flags that a shared browser must not have (all pages of all API keys run in one Chromium):
 * - `--disable-ipc-flooding-protection`: without the protection, one page calling `history.pushState` in a loop
 *   floods the browser process until no other page or context can be opened for minutes;
 * - `--disable-popup-blocking`: one page could open a renderer per `window.open` (hundreds of them) without any
 *   user gesture. Popups that a gesture still opens (a `click` action) are closed by page-guards.ts.
 */
export const REMOVED_DEFAULT_ARGS = ["--disable-ipc-flooding-protection", "--disable-popup-blocking"] as const;

/** How long `browser.close()` may take before the process is killed. */
export const CLOSE_TIMEOUT_MS = 3_000;

/**
 * The Chromium executable: `configured` when given (undefined if it does not exist), otherwise the first
 * Debian location that exists. Undefined means "no browser engine in this process".
 */
export function findChromium(configured: string, exists: (p: string) => boolean = existsSync): string | undefined {
  if (configured) return exists(configured) ? configured : undefined;
  return CHROMIUM_LOCATIONS.find((p) => exists(p));
}

/** The flag that runs Chromium's renderers without its OS sandbox (seccomp-bpf and namespaces). */
export const NO_SANDBOX_ARG = "--no-sandbox";

/** Options of {@link launchChromium}. */
export interface LaunchOptions {
  executablePath: string;
  /** The egress gate's proxy URL (`http://127.0.0.1:PORT`). */
  proxyUrl: string;
  /** Launch deadline. @default 30000 */
  timeoutMs?: number;
  /**
   * Chromium's own sandbox (`CRAWLBOX_CHROMIUM_SANDBOX`): `auto` (the default) has it when this process is not root
   * and falls back to none (calling `onNoSandbox` once) when the system cannot give it; `on` requires it; `off`
   * never has it.
   */
  sandbox?: "auto" | "on" | "off";
  /** Told why `auto` runs without the sandbox, the first time it does. */
  onNoSandbox?: (reason: string) => void;
  /** The user id `auto` decides for. @default this process's */
  uid?: number;
}

/** The removal of each Chromium's own profile, once it has exited (closeChromium and killProcess wait for it). */
const profileRemovals = new WeakMap<ChildProcess, Promise<void>>();

/** `auto` found the sandbox unusable on this system: later launches go without it at once. */
let sandboxUnusable: string | undefined;

/** Whether `mode` asks for Chromium's sandbox for a process of user id `uid` (root cannot have it). */
export function wantsSandbox(mode: LaunchOptions["sandbox"], uid: number | undefined = process.getuid?.()): boolean {
  if (mode === "on") return true;
  if (mode === "off") return false;
  return uid !== 0 && sandboxUnusable === undefined;
}

/**
 * Launches one Chromium whose every request goes through `proxyUrl`, with its own sandbox as `options.sandbox`
 * says: `auto` tries it (not as root) and, when Chromium cannot start with it because of the sandbox (asked of
 * Chromium itself: {@link sandboxFailure}), starts it without, once told; any other failure is the caller's error, and
 * the next launch tries the sandbox again.
 */
export async function launchChromium(options: LaunchOptions): Promise<Browser> {
  if (!options.proxyUrl) throw new TypeError("launchChromium: proxyUrl (the egress gate) is required");
  // Before each Chromium (a few an hour at most): the profiles of servers on this host that were killed, also one
  // killed while this server ran (singleton-dir.ts). A read of the temp dir when there are none.
  await sweepStaleProfileRoots();
  const sandboxed = wantsSandbox(options.sandbox ?? "auto", options.uid);
  try {
    return await launchOnce(options, sandboxed);
  } catch (err) {
    if (!sandboxed) throw err;
    // Through the debugging pipe a failed start says only "Target closed": Chromium's own words are on its stderr.
    const reason = await sandboxFailure(options.executablePath);
    if (reason === undefined) throw err;
    if (options.sandbox === "on") {
      // Required, so no fallback; but the 503 must name the sandbox, not only "Target closed".
      throw new Error(`Chromium cannot start with its own sandbox, which CRAWLBOX_CHROMIUM_SANDBOX=on requires: ${reason}`, { cause: err });
    }
    sandboxUnusable = reason;
    options.onNoSandbox?.(reason);
    return launchOnce(options, false);
  }
}

/** What Chromium says when its sandbox is the reason it cannot start (as root, without user namespaces, …). */
const SANDBOX_FAILURE = /sandbox|namespace|setuid|Operation not permitted/i;

/**
 * Starts `executablePath` with its sandbox on a blank page, as a plain process whose stderr is read (10 s at most),
 * with crawlbox's own flags (no background networking, no name resolution) and a throw-away profile: the line saying
 * why the sandbox cannot be had, or undefined when it started or failed for another reason.
 */
export async function sandboxFailure(executablePath: string): Promise<string | undefined> {
  const profile = newProfileDir();
  try {
    const proc = Bun.spawn([executablePath, ...CHROMIUM_ARGS, `--user-data-dir=${profile}`, "--dump-dom", "about:blank"], { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    if (code === 0) return undefined;
    return stderr.split("\n").find((l) => SANDBOX_FAILURE.test(l))?.replace(/^\[[^\]]*\]\s*/, "").trim().slice(0, 300);
  } catch {
    return undefined;
  } finally {
    await removeProfileDir(profile);
  }
}

async function launchOnce(options: LaunchOptions, sandboxed: boolean): Promise<Browser> {
  // A profile of crawlbox's own, not puppeteer's temporary one: puppeteer removes its own only from this process, so
  // a server killed with SIGKILL would leave it for ever; this one is found again by the next server.
  const userDataDir = newProfileDir();
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      userDataDir,
      executablePath: options.executablePath,
      headless: true,
      pipe: true,
      acceptInsecureCerts: false,
      defaultViewport: null,
      timeout: options.timeoutMs ?? 30_000,
      protocolTimeout: 60_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      ignoreDefaultArgs: [...REMOVED_DEFAULT_ARGS],
      args: [...CHROMIUM_ARGS, ...(sandboxed ? [] : [NO_SANDBOX_ARG]), `--proxy-server=${options.proxyUrl}`, "--proxy-bypass-list=<-loopback>"],
    });
  } catch (err) {
    // puppeteer has ended a Chromium that failed to start.
    await removeProfileDir(userDataDir);
    throw err;
  }
  const proc = browser.process();
  if (proc) {
    rememberSingletonDir(proc);
    // However it ends (closed, killed, crashed), its profile goes once it has exited.
    const exited = proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    profileRemovals.set(proc, exited.then(() => removeProfileDir(userDataDir)));
  }
  return browser;
}

/** Closes `browser`, killing its process when it does not close within `timeoutMs`. Never throws. */
export async function closeChromium(browser: Browser, timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
  const proc = browser.process();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = await Promise.race([
    browser.close().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (proc && (!closed || proc.exitCode === null)) {
    await killProcess(proc);
  }
  // A clean close has ended the process: its profile goes now, as puppeteer's temporary one did.
  if (proc) await Promise.race([profileRemovals.get(proc), Bun.sleep(CLOSE_TIMEOUT_MS)]);
}

/**
 * SIGKILLs a Chromium process (and its process group) and waits (briefly) for it to exit. Once it has exited, its
 * ProcessSingleton directory is removed too, also when it had already exited (a crash leaves it as well).
 */
export async function killProcess(proc: NonNullable<ReturnType<Browser["process"]>>): Promise<void> {
  // Found before the kill: puppeteer removes the profile that links to it as soon as the process exits.
  const singletonDir = singletonDirOf(proc);
  if (proc.exitCode !== null || proc.signalCode !== null) return removeSingletonDir(singletonDir);
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  // Also when the exit comes after the wait below: a SIGKILLed Chromium never removes the directory itself.
  const cleaned = exited.then(() => Promise.all([removeSingletonDir(singletonDir), profileRemovals.get(proc)]));
  try {
    // puppeteer starts Chromium detached: its pid is the process group of the renderers and helpers too.
    if (proc.pid !== undefined) process.kill(-proc.pid, "SIGKILL");
    else proc.kill("SIGKILL");
  } catch {
    try {
      proc.kill("SIGKILL");
    } catch {
      return;
    }
  }
  await Promise.race([cleaned, Bun.sleep(2_000)]);
}
