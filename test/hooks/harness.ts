/**
 * Test harness for engine conformance through real hook processes: hook files written into a temp
 * world (test/support/cli.ts), then either fired through `loadConfig` + `createHookEngine` +
 * `engine.fire` in this process (failure lines and records captured from the sinks), or through the
 * CLI `agent hooks test … --json` (a real process, or in-process: test/support/in-process.ts).
 */
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createHookEngine } from "../../src/hooks/engine.ts";
import type { EventOutcome, HookRecord } from "../../src/hooks/dispatch.ts";
import type { CanonicalEvent } from "../../src/util/events.ts";
import type { ToolName } from "../../src/tools/names.ts";
import type { PermissionMode, ToolResultInfo } from "../../src/hooks/dialects/types.ts";
import type { LoadWarning } from "../../src/hooks/types.ts";
import { EVENT_FIELD_DEFAULTS } from "../../src/hooks/event-fields.ts";
import { joinContexts } from "../../src/hooks/merge/context.ts";
import { runCli, type CliResult, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "hooks");

export type Scope = "user" | "project";

function scopeRoot(world: World, scope: Scope): string {
  return scope === "user" ? world.agentHome : join(world.project, ".agent");
}

/** Writes `<scope>/hooks/<dir>/hook.json` and an executable `run.sh` holding `body` (after `#!/bin/sh`). */
export function hookDir(world: World, scope: Scope, dir: string, manifest: Record<string, unknown>, body: string): string {
  const root = join(scopeRoot(world, scope), "hooks", dir);
  world.file(join(root, "hook.json"), JSON.stringify({ run: "./run.sh", ...manifest }));
  world.file(join(root, "run.sh"), `#!/bin/sh\n${body}\n`, { executable: true });
  return root;
}

/** Appends TOML to `<scope>/config.toml`. */
export function toml(world: World, scope: Scope, text: string): void {
  const path = join(scopeRoot(world, scope), "config.toml");
  const before = existsSync(path) ? readFileSync(path, "utf8") : "";
  world.file(path, `${before}${text}\n`);
}

/** Writes `<scope>/settings.json` with `{"hooks": {enabled: true, …hooks}}`. */
export function listHooks(world: World, scope: Scope, hooks: Record<string, unknown>): void {
  world.file(join(scopeRoot(world, scope), "settings.json"), JSON.stringify({ hooks: { enabled: true, ...hooks } }));
}

/** Writes an executable sh script inside the project (for list and lifecycle commands) and returns its path. */
export function script(world: World, relative: string, body: string): string {
  return world.file(relative, `#!/bin/sh\n${body}\n`, { executable: true });
}

/** The real runtime, with its env and home pointing at the world. */
export function runtimeFor(world: World, extraEnv: Record<string, string> = {}): Runtime {
  const base = createRuntime();
  return { ...base, env: () => world.env(extraEnv), platform: { ...base.platform, homedir: world.home } };
}

export interface FireOptions {
  readonly tool?: ToolName;
  readonly input?: Record<string, unknown>;
  readonly result?: ToolResultInfo;
  readonly fields?: Record<string, unknown>;
  readonly readonly?: boolean;
  readonly permissionMode?: PermissionMode;
  readonly env?: Record<string, string>;
  /** Wait for async hooks after the event (D15); default true. */
  readonly close?: boolean;
  readonly graceMs?: number;
}

export interface Fired {
  readonly outcome: EventOutcome;
  /** D21 failure lines, in emission order. */
  readonly lines: string[];
  readonly records: HookRecord[];
  readonly warnings: readonly LoadWarning[];
  /** The model-facing context as `agent hooks test` joins it. */
  readonly context: string;
  readonly elapsedMs: number;
}

/** Loads the world's config and fires one event through the real engine (same path as a session). */
export async function fire(world: World, event: CanonicalEvent, options: FireOptions = {}): Promise<Fired> {
  const runtime = runtimeFor(world, options.env);
  const loaded = loadConfig(runtime, { cwd: world.project });
  const lines: string[] = [];
  const records: HookRecord[] = [];
  const engine = createHookEngine(runtime, {
    hooks: loaded.hooks,
    readonlyMode: options.readonly ?? false,
    quietSuccessOutput: loaded.settings.hooks.quietSuccessOutput,
    sinks: { failureLine: (line) => lines.push(line), record: (record) => records.push(record) },
  });
  const started = performance.now();
  const fired = await engine.fire({
    event,
    sessionId: "sess-test",
    transcriptPath: null,
    cwd: world.project,
    projectDir: loaded.projectRoot,
    permissionMode: options.permissionMode ?? "bypass",
    ...(options.tool ? { tool: { name: options.tool, callId: "call_1", input: options.input ?? {} } } : {}),
    ...(options.result ? { result: options.result } : {}),
    fields: { ...EVENT_FIELD_DEFAULTS[event], ...options.fields },
    context: {
      sessionPath: null,
      providerId: null,
      modelId: null,
      agentId: null,
      invocationMode: "print",
      turnId: "turn-1",
      messageId: "msg-1",
      subagent: false,
    },
  });
  const elapsedMs = performance.now() - started;
  if (options.close !== false) await engine.close(options.graceMs);
  // Once the engine closed, the async hooks' rows are known: they follow the others, as in `agent hooks test`.
  const outcome = options.close !== false ? { ...fired, rows: [...fired.rows, ...(await fired.asyncRows)] } : fired;
  const context = joinContexts([...outcome.state.contexts, ...outcome.state.hidden]);
  return { outcome, lines, records, warnings: loaded.warnings, context, elapsedMs };
}

export interface HooksTestRow {
  readonly label: string;
  readonly scope: string;
  readonly form: string;
  readonly dialect: string;
  readonly status: string;
  readonly category: string | null;
  readonly elapsed_ms: number;
}

export interface HooksTestResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The parsed `--json` object (empty when stdout was not JSON). */
  readonly json: Record<string, unknown>;
  readonly hooks: HooksTestRow[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toRow(value: unknown): HooksTestRow {
  const row = isRecord(value) ? value : {};
  return {
    label: String(row.label),
    scope: String(row.scope),
    form: String(row.form),
    dialect: String(row.dialect),
    status: String(row.status),
    category: typeof row.category === "string" ? row.category : null,
    elapsed_ms: typeof row.elapsed_ms === "number" ? row.elapsed_ms : -1,
  };
}

type HooksTestOptions = { env?: Record<string, string>; json?: boolean; cwd?: string };

function hooksTestArgs(
  world: World,
  args: readonly string[],
  options: HooksTestOptions,
): { argv: string[]; run: { env: Record<string, string>; cwd?: string } } {
  const json = options.json !== false;
  return {
    argv: ["hooks", "test", ...args, ...(json ? ["--json"] : []), "--trust"],
    run: { env: world.env(options.env), ...(options.cwd ? { cwd: options.cwd } : {}) },
  };
}

function hooksTestResult(run: CliResult, json: boolean): HooksTestResult {
  let parsed: unknown = {};
  if (json && run.code !== 1) {
    try {
      parsed = JSON.parse(run.stdout);
    } catch {
      throw new Error(`hooks test printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    }
  }
  const object = isRecord(parsed) ? parsed : {};
  const hooks = Array.isArray(object.hooks) ? object.hooks.map(toRow) : [];
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, json: object, hooks };
}

/** Runs `agent hooks test ARGS --json --trust` in the world's project (a real `bun src/main.ts`). */
export function hooksTest(world: World, args: readonly string[], options: HooksTestOptions = {}): HooksTestResult {
  const { argv, run } = hooksTestArgs(world, args, options);
  return hooksTestResult(runCli(world, argv, run), options.json !== false);
}

/** `hooksTest` without a process (support/in-process.ts); the hooks still run as real processes. */
export async function hooksTestInProcess(world: World, args: readonly string[], options: HooksTestOptions = {}): Promise<HooksTestResult> {
  const { argv, run } = hooksTestArgs(world, args, options);
  return hooksTestResult(await runCliInProcess(world, argv, run), options.json !== false);
}

/** Reads a log file of lines (empty when missing). */
export function logLines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

/** Asserts `[start, end]` intervals (ms since epoch) never overlap. */
export function expectNoOverlap(intervals: readonly (readonly [number, number])[]): void {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i += 1) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    if (previous && current) expect(current[0]).toBeGreaterThanOrEqual(previous[1]);
  }
}

/** Shell snippet: appends `<token> start <ms>` / `<token> end <ms>` to a log (GNU date %N). */
export function stamp(log: string, token: string, which: "start" | "end"): string {
  return `echo "${token} ${which} $(date +%s%3N)" >> '${log}'`;
}

/** Parses a `stamp` log into token → [start, end]. */
export function intervals(log: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const line of logLines(log)) {
    const [token, which, ms] = line.split(" ");
    if (token === undefined || ms === undefined) continue;
    const entry = out.get(token) ?? [Number.NaN, Number.NaN];
    if (which === "start") entry[0] = Number(ms);
    else entry[1] = Number(ms);
    out.set(token, entry);
  }
  return out;
}

/** One token's [start, end] from `intervals` (NaN when missing, so comparisons fail loudly). */
export function span(map: Map<string, [number, number]>, token: string): [number, number] {
  return map.get(token) ?? [Number.NaN, Number.NaN];
}
