/** Normalised tool calls for the gate's unit tests: a fixed place, the real file system. */
import { createRuntime } from "../../src/runtime/index.ts";
import { normalizeCall, type CallPlace, type NormalizedCall } from "../../src/tools/call.ts";
import type { ToolId } from "../../src/tools/names.ts";

const runtime = createRuntime();

/** A project that does not exist on disk, so real locations equal resolved ones. */
export const PLACE: CallPlace = { cwd: "/nonexistent-proj", projectDir: "/nonexistent-proj", home: "/nonexistent-home", agentHome: "/nonexistent-home/.agent" };

export function callOf(tool: ToolId, input: Readonly<Record<string, unknown>>, place: CallPlace = PLACE): NormalizedCall {
  return normalizeCall(runtime.fs, place, tool, input);
}
