/**
 * Helpers for the hooks-examples tests: run one example script as the agent would (same stdin
 * bytes, built by the real dialect encoders; same cwd rules), in a temp project, with a small
 * explicit environment.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeActionRequest } from "../../src/hooks/dialects/action.ts";
import { encodeClaudePayload } from "../../src/hooks/dialects/claude.ts";
import type { HookEventInput, ToolResultInfo } from "../../src/hooks/dialects/types.ts";
import type { CanonicalEvent } from "../../src/util/events.ts";
import type { DirHookSpec, LifecycleHookSpec } from "../../src/hooks/types.ts";
import type { ToolName } from "../../src/tools/names.ts";

export const REPO = join(import.meta.dir, "..", "..");
export const EXAMPLES = join(REPO, "hooks-examples");

export function tempDir(prefix = "agent-examples-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Writes an executable fake command into `dir` (created) and returns `dir`. */
export function fakeCommand(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
  return dir;
}

interface EventOptions {
  readonly cwd: string;
  readonly tool?: { readonly name: ToolName; readonly input: Record<string, unknown> };
  readonly result?: ToolResultInfo;
  readonly fields?: Record<string, unknown>;
}

function eventInput(event: CanonicalEvent, options: EventOptions): HookEventInput {
  return {
    event,
    sessionId: "sess-examples",
    transcriptPath: null,
    cwd: options.cwd,
    projectDir: options.cwd,
    permissionMode: "default",
    ...(options.tool ? { tool: { name: options.tool.name, callId: "call_1", input: options.tool.input } } : {}),
    ...(options.result ? { result: options.result } : {}),
    fields: options.fields ?? {},
    context: {
      sessionPath: null,
      providerId: null,
      modelId: null,
      agentId: null,
      invocationMode: "print",
      turnId: "turn-0",
      messageId: "msg-0",
      subagent: false,
    },
    strippedEnvValues: [],
  };
}

const base = { scope: "project", source: "/x", field: "", disabled: false, timeoutMs: 5000 } as const;

/** The exact stdin line a hook directory (action dialect) receives for `event`. */
export function actionStdin(event: "pre_tool" | "post_tool", options: EventOptions): string {
  const spec: DirHookSpec = {
    ...base,
    label: "h",
    form: "dir",
    dialect: "action",
    event,
    name: "h",
    dir: "/x",
    run: "/x/run.sh",
    match: "*",
    failClosed: false,
    async: false,
  };
  return `${JSON.stringify(encodeActionRequest(spec, eventInput(event, options)))}\n`;
}

/** The exact stdin line a lifecycle command (claude dialect) receives for `event`. */
export function claudeStdin(event: CanonicalEvent, options: EventOptions): string {
  const spec: LifecycleHookSpec = {
    ...base,
    label: "h",
    form: "lifecycle",
    dialect: "claude",
    event,
    command: "x",
    matcher: undefined,
    matcherRegex: null,
    eventKey: event,
    groupIndex: 0,
    hookIndex: 0,
    failurePolicy: "warn",
  };
  return `${JSON.stringify(encodeClaudePayload(spec, eventInput(event, options)))}\n`;
}

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `script` with `stdin` in `cwd`. The environment is PATH, HOME and the AGENT_* names the
 * runner sets (AGENT_CWD, AGENT_PROJECT_DIR = cwd), plus `env`.
 */
export function runScript(script: string, stdin: string, options: { cwd: string; env?: Record<string, string> }): ScriptRun {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? options.cwd,
    AGENT_CWD: options.cwd,
    AGENT_PROJECT_DIR: options.cwd,
    ...options.env,
  };
  const result = spawnSync(script, [], { cwd: options.cwd, env, input: stdin, encoding: "utf8", timeout: 20_000 });
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** Parses the single JSON line an action or claude hook printed (throws when it is not one line). */
export function onlyJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  if (lines.length !== 1) throw new Error(`expected one JSON line, got ${JSON.stringify(stdout)}`);
  const line = lines[0] ?? "";
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not an object: ${line}`);
  return Object.fromEntries(Object.entries(parsed));
}
