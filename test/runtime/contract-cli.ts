/**
 * Standalone spawn-contract run for the current runtime (no bun:test), for CI:
 *   npx deno run -A test/runtime/contract-cli.ts
 *   npx bun build test/runtime/contract-cli.ts --target=node --outfile=.cache/contract-node.mjs && node .cache/contract-node.mjs
 * Exits 1 when any check fails.
 */
import { createRuntime } from "../../src/runtime/index.ts";
import { runContract } from "./contract.ts";

const runtime = createRuntime();
const { passed, failed } = await runContract(runtime);
runtime.writeStdout(`spawn contract on ${runtime.name}: ${passed} passed, ${failed.length} failed\n`);
for (const line of failed) runtime.writeStderr(`FAIL ${line}\n`);
runtime.exit(failed.length === 0 && passed > 0 ? 0 : 1);
