// bench/plugins.ts runs end to end with one iteration and prints its table; never a timed assertion.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO } from "../support/cli.ts";

test("bench/plugins.ts runs and reports every case against the no-plugin baseline", () => {
  const r = spawnSync(process.execPath, [join(REPO, "bench", "plugins.ts"), "1"], { cwd: REPO, encoding: "utf8", timeout: 120_000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("| no plugin (baseline) |");
  expect(r.stdout).toContain("| 1 large plugin (500 files, 2 MiB) |");
}, 120_000);
