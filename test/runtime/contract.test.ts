import { expect, test } from "bun:test";
import { createRuntime } from "../../src/runtime/index.ts";
import { runContract } from "./contract.ts";

// The same contract runs under Deno and Node through contract-cli.ts (see that file).
for (const name of ["bun", "node"] as const) {
  test(`spawn contract: ${name} spawner (RUN-39 own session, RUN-40 own group, D15 group kill)`, async () => {
    const { passed, failed } = await runContract(createRuntime(name));
    expect(failed).toEqual([]);
    expect(passed).toBeGreaterThan(10);
  }, 120_000);
}
