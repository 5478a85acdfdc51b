/**
 * The plan in a real terminal (tmux): a `todo_write` call draws its items as a checklist under its
 * tool row (☐ pending, ◐ in progress in bold, ☑ completed dimmed; `[ ]`, `[>]`, `[x]` without
 * colour), a second call draws the updated list, and `--resume` draws both again from the session
 * file. Script provider.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, sessionIdOfName, writeScript, type World } from "../support/cli.ts";
import { PROMPT, withPane } from "./tmux.ts";

const SCRIPT = ["--script", "script.json"];

const FIRST = [
  { content: "Read the failing test", status: "in_progress" },
  { content: "Fix the parser", status: "pending" },
  { content: "Run the suite", status: "pending" },
];
const SECOND = [
  { content: "Read the failing test", status: "completed" },
  { content: "Fix the parser", status: "in_progress" },
  { content: "Run the suite", status: "pending" },
];

function planScript(w: World): void {
  writeScript(w, [
    { tool_calls: [{ name: "todo_write", arguments: { todos: FIRST } }] },
    { tool_calls: [{ name: "todo_write", arguments: { todos: SECOND } }] },
    { text: "planned" },
  ]);
}

/** The rows under the n-th (0-based) `● todo_write` line, up to the next blank or tool line. */
function planUnder(screen: string, n: number): string[] {
  const lines = screen.split("\n");
  const starts = lines.flatMap((line, index) => (line.startsWith("● todo_write") ? [index] : []));
  const start = starts[n] ?? -1;
  if (start < 0) return [];
  return lines.slice(start + 1, start + 5);
}

describe("the plan", () => {
  test("todo_write shows a checklist under its row, a second call the updated one, and --resume both again", async () => {
    const w = makeWorld();
    planScript(w);
    let id = "";
    await withPane(w, SCRIPT, { noColor: false }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("make a plan", "Enter");
      await pane.waitFor("planned");
      const screen = await pane.waitFor(PROMPT);
      expect(planUnder(screen, 0)).toEqual(["  ⎿ ok: Plan (0/3 completed):", "    ◐ Read the failing test", "    ☐ Fix the parser", "    ☐ Run the suite"]);
      expect(planUnder(screen, 1)).toEqual(["  ⎿ ok: Plan (1/3 completed):", "    ☑ Read the failing test", "    ◐ Fix the parser", "    ☐ Run the suite"]);
      const escaped = pane.screenWithEscapes();
      expect(escaped).toContain("\x1b[1m◐ Read the failing test");
      expect(escaped).toContain("\x1b[2m☑ Read the failing test");
      expect(escaped).toContain("\x1b[1m◐ Fix the parser");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
      const [name = ""] = readdirSync(join(w.agentHome, "sessions")).filter((file) => file.endsWith(".jsonl"));
      id = sessionIdOfName(name);
    });
    await withPane(w, [...SCRIPT, "--resume", id], { noColor: false }, async (pane) => {
      const screen = await pane.waitFor(PROMPT);
      expect(planUnder(screen, 0).slice(1)).toEqual(["    ◐ Read the failing test", "    ☐ Fix the parser", "    ☐ Run the suite"]);
      expect(planUnder(screen, 1).slice(1)).toEqual(["    ☑ Read the failing test", "    ◐ Fix the parser", "    ☐ Run the suite"]);
      expect(pane.screenWithEscapes()).toContain("\x1b[2m☑ Read the failing test");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 120_000);

  test("under NO_COLOR the checklist is [ ], [>], [x] with no escapes, live and on --resume", async () => {
    const w = makeWorld();
    planScript(w);
    let id = "";
    const second = ["  ⎿ ok: Plan (1/3 completed):", "    [x] Read the failing test", "    [>] Fix the parser", "    [ ] Run the suite"];
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("make a plan", "Enter");
      await pane.waitFor("planned");
      const screen = await pane.waitFor(PROMPT);
      expect(planUnder(screen, 0).slice(1)).toEqual(["    [>] Read the failing test", "    [ ] Fix the parser", "    [ ] Run the suite"]);
      expect(planUnder(screen, 1)).toEqual(second);
      expect(pane.screenWithEscapes()).not.toContain("\x1b[");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
      const [name = ""] = readdirSync(join(w.agentHome, "sessions")).filter((file) => file.endsWith(".jsonl"));
      id = sessionIdOfName(name);
    });
    await withPane(w, [...SCRIPT, "--resume", id], {}, async (pane) => {
      const screen = await pane.waitFor(PROMPT);
      expect(planUnder(screen, 1)).toEqual(second);
      expect(pane.screenWithEscapes()).not.toContain("\x1b[");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 120_000);
});
