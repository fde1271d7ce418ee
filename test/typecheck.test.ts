/**
 * The whole tree type-checks (tsc, strict). Bun runs TypeScript without checking types, so without this test a
 * type error would only show up in an editor.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("tsc --noEmit passes on src, plugins, test and scripts", () => {
  const root = join(import.meta.dir, "..");
  const r = Bun.spawnSync([join(root, "node_modules", ".bin", "tsc"), "-p", root], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const output = r.stdout.toString() + r.stderr.toString();
  if (r.exitCode !== 0) console.error(output);
  expect(r.exitCode).toBe(0);
}, 120_000);
