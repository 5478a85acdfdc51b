import { describe, expect, test } from "bun:test";
import type { CanonicalEvent } from "../../src/util/events.ts";
import { compileMatcher } from "../../src/config/lifecycle.ts";
import { dirMatches, hookMatches, lifecycleMatches, listMatches } from "../../src/hooks/match.ts";
import type { DirHookSpec, LifecycleHookSpec, ListHookSpec, ListPhase } from "../../src/hooks/types.ts";
import { TOOL_NAMES } from "../../src/tools/names.ts";

const base = { scope: "user", source: "/x", field: "", disabled: false, timeoutMs: 5000, label: "l" } as const;

function dir(match: string, event: "pre_tool" | "post_tool" = "pre_tool"): DirHookSpec {
  return { ...base, form: "dir", dialect: "action", event, name: "d", dir: "/d", run: "/d/run", match, failClosed: false, async: false };
}

function life(event: CanonicalEvent, matcher: string | undefined): LifecycleHookSpec {
  const compiled = compileMatcher(matcher, event);
  if (!compiled.ok) throw new Error(compiled.message);
  return {
    ...base,
    form: "lifecycle",
    dialect: "claude",
    event,
    command: "x",
    matcher,
    matcherRegex: compiled.regex,
    eventKey: event,
    groupIndex: 0,
    hookIndex: 0,
    failurePolicy: "warn",
  };
}

function list(phase: ListPhase, includeTools: string[] = [], excludeTools: string[] = []): ListHookSpec {
  const event = ({ before_tool: "pre_tool", after_tool: "post_tool", after_assistant: "after_assistant", after_reasoning: "after_reasoning" } as const)[phase];
  return {
    ...base,
    form: "list",
    dialect: "envelope",
    event,
    command: "x",
    phase,
    index: 0,
    failurePolicy: "warn",
    payload: "redacted",
    stdoutMaxBytes: 8192,
    stderrMaxBytes: 8192,
    providerContextInjection: false,
    providerContextMaxBytes: 4096,
    includeTools,
    excludeTools,
    absolutePaths: true,
  };
}

const selected = (predicate: (tool: string) => boolean): string[] => TOOL_NAMES.filter(predicate);

describe("hook-dir match (D4)", () => {
  test("DIR-29 exact names and aliases; BASH matches nothing; * and empty match all", () => {
    expect(selected((t) => dirMatches(dir("bash"), t))).toEqual(["bash"]);
    expect(selected((t) => dirMatches(dir("Bash"), t))).toEqual(["bash"]);
    expect(selected((t) => dirMatches(dir("exec_command"), t))).toEqual(["bash"]);
    expect(selected((t) => dirMatches(dir("BASH"), t))).toEqual([]);
    expect(selected((t) => dirMatches(dir("*"), t))).toEqual([...TOOL_NAMES]);
    expect(selected((t) => dirMatches(dir(""), t))).toEqual([...TOOL_NAMES]);
  });

  test("DIR-30 match is neither a regex nor a glob", () => {
    expect(selected((t) => dirMatches(dir("Edit|Write"), t))).toEqual([]);
    expect(selected((t) => dirMatches(dir("ba.*"), t))).toEqual([]);
  });

  test("DIR-31 the event must fit: a pre_tool hook never matches post_tool", () => {
    expect(hookMatches(dir("bash", "pre_tool"), "pre_tool", { tool: "bash" })).toBe(true);
    expect(hookMatches(dir("bash", "pre_tool"), "post_tool", { tool: "bash" })).toBe(false);
    expect(hookMatches(dir("bash", "post_tool"), "post_tool", { tool: "read" })).toBe(false);
  });
});

describe("lifecycle matchers (D5)", () => {
  test("LIFE-12 anchored, case-sensitive, aliases count", () => {
    expect(selected((t) => lifecycleMatches(life("pre_tool", "Bash"), t))).toEqual(["bash"]);
    expect(selected((t) => lifecycleMatches(life("pre_tool", "Write"), t))).toEqual(["write"]);
    for (const m of ["bash", "shell", "exec_command"]) expect(selected((t) => lifecycleMatches(life("pre_tool", m), t))).toEqual(["bash"]);
    for (const m of ["BASH", "Bas"]) expect(selected((t) => lifecycleMatches(life("pre_tool", m), t))).toEqual([]);
  });

  test("LIFE-13 alternation, alias matchers, and match-all forms", () => {
    expect(selected((t) => lifecycleMatches(life("post_tool", "Write|Edit"), t))).toEqual(["write", "edit"]);
    expect(selected((t) => lifecycleMatches(life("pre_tool", "hash_edit"), t))).toEqual(["edit"]);
    expect(selected((t) => lifecycleMatches(life("pre_tool", "apply_patch"), t))).toEqual(["apply_patch"]);
    expect(selected((t) => lifecycleMatches(life("pre_tool", "code_search"), t))).toEqual(["grep"]);
    for (const m of [".*", "*", "", undefined]) expect(selected((t) => lifecycleMatches(life("pre_tool", m), t))).toEqual([...TOOL_NAMES]);
  });

  test("LIFE-15 prompt matchers: whole value, dotAll", () => {
    const spec = life("user_prompt_submit", ".*security.*");
    expect(lifecycleMatches(spec, "check security")).toBe(true);
    expect(lifecycleMatches(spec, "line one\nsecurity review")).toBe(true);
    expect(lifecycleMatches(spec, "hello")).toBe(false);
    expect(lifecycleMatches(life("user_prompt_submit", "security"), "check security")).toBe(false);
  });

  test("LIFE-16 LIFE-17 LIFE-18 LIFE-19 matchers on sources, reasons, agent names, triggers and types", () => {
    const fires = (event: CanonicalEvent, matcher: string, value: string): boolean => hookMatches(life(event, matcher), event, { matchValue: value });
    expect(["startup", "resume", "clear", "compact"].filter((v) => fires("session_start", "startup", v))).toEqual(["startup"]);
    expect(["startup", "resume", "compact"].filter((v) => fires("session_start", "startup|resume", v))).toEqual(["startup", "resume"]);
    expect(["completed", "cancelled", "error"].filter((v) => fires("session_end", "completed", v))).toEqual(["completed"]);
    expect(fires("subagent_start", "reviewer", "reviewer")).toBe(true);
    expect(fires("subagent_stop", "reviewer", "tester")).toBe(false);
    expect(["auto", "manual"].filter((v) => fires("pre_compact", "auto", v))).toEqual(["auto"]);
    expect(["custom", "idle_prompt", "permission_prompt"].filter((v) => fires("notification", "custom", v))).toEqual(["custom"]);
  });

  test("LIFE-20 stop ignores its matcher; permission_request matches tool aliases", () => {
    expect(hookMatches(life("stop", "never-matches"), "stop", {})).toBe(true);
    expect(hookMatches(life("permission_request", "exec_command"), "permission_request", { tool: "bash" })).toBe(true);
    expect(hookMatches(life("permission_request", "exec_command"), "permission_request", { tool: "write" })).toBe(false);
  });

  test("LIFE-68 MCP and write_stdin matchers select nothing", () => {
    for (const m of ["mcp__.*", "mcp__github__create_issue", "write_stdin"]) {
      expect(selected((t) => lifecycleMatches(life("pre_tool", m), t))).toEqual([]);
    }
  });

  test("MERGE-04 groups with Bash and .* matchers", () => {
    const bashGroup = life("pre_tool", "Bash");
    const all = life("pre_tool", ".*");
    expect([bashGroup, all].filter((s) => hookMatches(s, "pre_tool", { tool: "bash" })).length).toBe(2);
    expect([bashGroup, all].filter((s) => hookMatches(s, "pre_tool", { tool: "read" }))).toEqual([all]);
  });
});

describe("list filters (seed 003)", () => {
  test("TOOL-08 no filters: every tool", () => {
    expect(selected((t) => listMatches(list("before_tool"), t))).toEqual([...TOOL_NAMES]);
  });

  test("TOOL-09 include_tools with aliases; BASH and unknown names select nothing", () => {
    expect(selected((t) => listMatches(list("before_tool", ["write", "edit", "bash"]), t))).toEqual(["write", "edit", "bash"]);
    for (const name of ["shell", "exec_command", "Bash"]) expect(selected((t) => listMatches(list("before_tool", [name]), t))).toEqual(["bash"]);
    expect(selected((t) => listMatches(list("before_tool", ["hash_edit"]), t))).toEqual(["edit"]);
    for (const name of ["ffgrep", "code_search"]) expect(selected((t) => listMatches(list("before_tool", [name]), t))).toEqual(["grep"]);
    expect(selected((t) => listMatches(list("before_tool", ["parallel_subagents"]), t))).toEqual(["task"]);
    expect(selected((t) => listMatches(list("before_tool", ["BASH"]), t))).toEqual([]);
    expect(selected((t) => listMatches(list("before_tool", ["web_search"]), t))).toEqual([]);
  });

  test("TOOL-10 exclude applies after include; [] filters nothing", () => {
    expect(selected((t) => listMatches(list("after_tool", [], ["read", "grep"]), t))).toEqual([
      "write",
      "edit",
      "bash",
      "glob",
      "task",
      "bash_output",
      "kill_shell",
      "todo_write",
      "multi_edit",
      "apply_patch",
      "web_fetch",
    ]);
    expect(selected((t) => listMatches(list("after_tool", ["bash"], ["bash"]), t))).toEqual([]);
    expect(selected((t) => listMatches(list("after_tool", [], []), t))).toEqual([...TOOL_NAMES]);
  });

  test("TOOL-11 message phases ignore include/exclude", () => {
    expect(hookMatches(list("after_assistant", ["bash"]), "after_assistant", {})).toBe(true);
    expect(hookMatches(list("after_reasoning", [], ["assistant"]), "after_reasoning", {})).toBe(true);
    expect(hookMatches(list("after_assistant"), "after_reasoning", {})).toBe(false);
  });
});
