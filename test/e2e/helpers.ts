// Shared helpers for the end-to-end gap tests: the real CLI in a temp world, session files read back.
import { expect } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, type World } from "../support/cli.ts";
import { ofType } from "../support/events.ts";

export type Rec = Record<string, unknown>;

/** `agent run` with the script provider in bypass mode, JSON output and one-run trust. */
export const RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--output-format", "json", "--trust"];

/** The records of the world's only top-level session file. */
export function sessionRecords(world: World): Rec[] {
  const dir = join(world.agentHome, "sessions");
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  expect(files.length).toBe(1);
  return readJsonl(readFileSync(join(dir, files[0] as string), "utf8"));
}

export { lastJson, ofType } from "../support/events.ts";

/** Final (non-`started`) hook_lifecycle records. */
export function hookRuns(records: readonly Rec[]): Rec[] {
  return records.filter((r) => r.type === "hook_lifecycle" && r.status !== "started");
}

/** Content the model got for each tool call, in order. */
export function delivered(records: readonly Rec[]): string[] {
  return ofType(records, "tool_result_delivered").map((r) => String(r.content));
}

/** Non-empty lines of a text file. */
export function lines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** `{ turns: [...] }` script: one turn per call list, then a final text. */
export function bashTurns(...commands: string[][]): unknown[] {
  let n = 0;
  const turns: unknown[] = commands.map((batch) => ({
    tool_calls: batch.map((command) => ({ id: `call_${++n}`, name: "bash", arguments: { command } })),
  }));
  turns.push({ text: "done" });
  return turns;
}
