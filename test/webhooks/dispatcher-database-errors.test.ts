/**
 * A dispatcher whose database refuses to record a delivery (a full disk, a read-only file) holds the event for a
 * poll interval instead of picking it again at once. It used to chain microtasks forever: timers never fired, an
 * HTTP server in the same process never answered and SIGTERM could not stop it. The scenario runs in a child
 * process (test/webhooks/fixtures/refusing-database-child.ts) so that a spinning dispatcher can be killed.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const CHILD = join(import.meta.dir, "fixtures", "refusing-database-child.ts");
/** Far above the child's ~3 s: only a dispatcher that starves the event loop runs into it. */
const CHILD_DEADLINE_MS = 20_000;

interface ChildReport {
  during: { errorsLogged: number; firstError?: string; receiverHits: number };
  after: { state: string; receiverHits: number };
}

async function runChild(mode: string): Promise<{ exitCode: number | null; killed: boolean; report?: ChildReport; stderr: string }> {
  const child = Bun.spawn([process.execPath, CHILD, mode], { stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, CHILD_DEADLINE_MS);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  const line = stdout.trim().split("\n").at(-1);
  return { exitCode, killed, stderr, report: line?.startsWith("{") ? (JSON.parse(line) as ChildReport) : undefined };
}

test("a full disk (attempt not recordable) does not freeze the process; the error is logged once; delivery resumes when space returns", async () => {
  const r = await runChild("disk-full");
  expect({ killed: r.killed, exitCode: r.exitCode }).toEqual({ killed: false, exitCode: 0 });
  const { during, after } = r.report!;
  // The 1.5 s timer fired (the event loop was free), with one logged error for what were a couple of tries.
  expect(during.errorsLogged).toBe(1);
  expect(during.firstError).toContain("could not be recorded");
  expect(during.receiverHits).toBe(0);
  expect(after).toEqual({ state: "delivered", receiverHits: 1 });
}, 40_000);

test("an outcome not recordable after a 2xx does not re-POST in a loop; the event is sent again once the database accepts writes", async () => {
  const r = await runChild("refused-after-2xx");
  expect({ killed: r.killed, exitCode: r.exitCode }).toEqual({ killed: false, exitCode: 0 });
  const { during, after } = r.report!;
  expect(during.errorsLogged).toBe(1);
  expect(during.receiverHits).toBe(1);
  // At least once: the 2xx was not recorded, so the event goes once more (same webhook-id) and is then delivered.
  expect(after).toEqual({ state: "delivered", receiverHits: 2 });
}, 40_000);
