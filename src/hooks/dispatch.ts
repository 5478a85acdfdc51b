/**
 * Dispatch of one event: plan (select hooks, D13 order, D10, D24 readonly) → run (batch by batch:
 * claude-dialect lifecycle commands together, other hooks one at a time; hook dirs all together in
 * the post phase) → merge (src/hooks/merge/merge.ts) → report (failure lines,
 * hook_lifecycle / hook_diagnostic / hook_context_injection records through sinks). Never throws.
 */
import type { CanonicalEvent } from "../util/events.ts";
import { TOOL_EVENTS } from "../util/events.ts";
import type { FailureCategory, HookSpec } from "./types.ts";
import type { HookEventInput } from "./dialects/types.ts";
import { executeHook, type ExecuteContext, type HookRun } from "./handlers/command.ts";
import { initialState, step, decisionOf, type MergeState, type MergeOptions, type FailureNote } from "./merge/merge.ts";
import { hookMatches } from "./match.ts";
import { redactText } from "./secrets/redact.ts";
import { escapeControls } from "../util/escape.ts";
import type { HookContextInjectionFields, HookDiagnosticFields, HookLifecycleFields, HOOK_PHASES, HOOK_POLICIES } from "../session/records.ts";

export interface HookRow {
  readonly label: string;
  readonly scope: string;
  readonly form: string;
  readonly dialect: string;
  readonly status: "success" | "failed" | "skipped";
  readonly category: string | null;
  readonly elapsed_ms: number;
}

/**
 * Local-only records (seed 003 allowlists; D25), typed by their session record schema where they
 * are built, so the writer never has to validate them. `activity_id` equals the tool call id.
 */
export type HookRecord =
  | { readonly type: "hook_lifecycle"; readonly fields: HookLifecycleFields }
  | { readonly type: "hook_diagnostic"; readonly fields: HookDiagnosticFields }
  | { readonly type: "hook_context_injection"; readonly fields: HookContextInjectionFields };

type HookPhase = (typeof HOOK_PHASES)[number];
type HookTarget = HookLifecycleFields["target_tool"];
type HookPolicy = (typeof HOOK_POLICIES)[number];

export interface DispatchSinks {
  /** One D21 failure line (already formatted, without trailing newline). */
  failureLine?(line: string): void;
  record?(record: HookRecord): void;
  /** A starting hook's Claude Code `statusMessage`, for the UI's running line. */
  statusLine?(text: string): void;
}

export interface DispatchContext extends ExecuteContext {
  readonly hooks: readonly HookSpec[];
  readonly readonlyMode: boolean;
  readonly merge: MergeOptions;
  readonly sinks: DispatchSinks;
  /** Async hook-dir runs still going, each with its own cancel (reaped at exit, D15). */
  readonly asyncRuns: Map<Promise<unknown>, AbortController>;
  /** Keys (`session id`, file, field) of `once` hooks that have started; absent: `once` is not tracked. */
  readonly onceStarted?: Set<string>;
}

export interface EventOutcome {
  readonly state: MergeState;
  readonly decision: ReturnType<typeof decisionOf>["decision"];
  readonly reason: string | null;
  /** One row per hook that ran (or was skipped) before the outcome, in run order; async hooks excluded. */
  readonly rows: readonly HookRow[];
  /**
   * Rows of this event's async hooks (D15), resolved once every one of them ended (at the latest
   * when the engine closes); [] when none was started. Never rejects.
   */
  readonly asyncRows: Promise<readonly HookRow[]>;
}

const FAILURE_CATEGORIES: readonly FailureCategory[] = ["exit", "timeout", "runner", "stdin", "output-limit"];

const LIST_PHASE: Partial<Record<CanonicalEvent, HookPhase>> = {
  pre_tool: "before_tool",
  post_tool: "after_tool",
  post_tool_failure: "after_tool",
  after_assistant: "after_assistant",
  after_reasoning: "after_reasoning",
};

/** The value a lifecycle matcher is tested against (D5). */
function matchValue(input: HookEventInput): string | undefined {
  const f = input.fields;
  const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
  switch (input.event) {
    case "user_prompt_submit":
      return str(f.prompt) ?? "";
    case "session_start":
      return str(f.source) ?? "";
    case "session_end":
      return str(f.reason) ?? "";
    case "subagent_start":
    case "subagent_stop":
      return str(f.agent_name) ?? "";
    case "pre_compact":
      return str(f.trigger) ?? "";
    case "notification":
      return str(f.notification_type) ?? "";
    default:
      return undefined;
  }
}

/**
 * Hooks that fire for this event occurrence, in declared order (D13). A tool's post phase is the
 * event `post_tool`: hook dirs and lists get successes and failures; lifecycle `post_tool` groups
 * only successes and `post_tool_failure` groups only failures (D10).
 */
export function planHooks(hooks: readonly HookSpec[], input: HookEventInput, readonlyMode: boolean): HookSpec[] {
  const isPost = input.event === "post_tool" || input.event === "post_tool_failure";
  const failed = isPost && input.result !== undefined && !input.result.success;
  return hooks.filter((spec) => {
    if (spec.disabled) return false;
    if (isPost) {
      if (spec.form === "lifecycle") {
        if (spec.event !== (failed ? "post_tool_failure" : "post_tool")) return false;
      } else if (spec.event !== "post_tool") return false;
    } else if (spec.event !== input.event) return false;
    // A user's choice of readonly mode does not switch the managed policy's hooks off.
    if (readonlyMode && TOOL_EVENTS.has(input.event) && spec.scope !== "managed") {
      const failClosed = spec.form === "dir" ? spec.failClosed : spec.failurePolicy === "block" || spec.failurePolicy === "fail";
      if (!failClosed) return false;
    }
    const tool = input.tool?.name;
    return hookMatches(spec, spec.event, { ...(tool ? { tool } : {}), ...(matchValue(input) !== undefined ? { matchValue: matchValue(input) } : {}) });
  });
}

function phaseOf(spec: HookSpec, event: CanonicalEvent): HookPhase {
  return spec.form === "list" ? (LIST_PHASE[event] ?? event) : spec.event;
}

function policyName(spec: HookSpec): HookPolicy {
  return spec.form === "dir" ? (spec.failClosed ? "fail_closed" : "fail_open") : spec.failurePolicy;
}

function targetTool(input: HookEventInput): HookTarget {
  if (input.tool) return input.tool.name;
  if (input.event === "after_assistant") return "assistant";
  if (input.event === "after_reasoning") return "reasoning";
  return null;
}

function lifecycleFields(spec: HookSpec, input: HookEventInput, hookIndex: number, extra: Partial<HookLifecycleFields> = {}): HookLifecycleFields {
  const callId = input.tool?.callId ?? null;
  return {
    phase: phaseOf(spec, input.event),
    label: spec.label,
    target_tool: targetTool(input),
    status: "started" as const,
    policy: policyName(spec),
    category: null,
    target_ran: null,
    tool_call_id: callId,
    activity_id: callId,
    hook_index: spec.form === "list" ? spec.index : hookIndex,
    elapsed_ms: null,
    message: null,
    ...extra,
  };
}

/** Control characters (C0 except TAB, DEL and C1, which terminals read as CSI) removed; at most 200 characters (SEC-20). */
function sanitizeLine(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if ((code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f)) continue;
    out += ch;
  }
  return out.length > 200 ? out.slice(0, 200) : out;
}

/** The D21 line. Hook dirs may show their first stderr line (redacted); lists and lifecycle never show output. */
export function formatFailureLine(note: FailureNote, event: CanonicalEvent, envValues: readonly string[] = []): string {
  let detail = note.detail;
  if (note.spec.form === "dir" && note.stderrFirstLine.trim() !== "") {
    detail += ` (stderr: ${sanitizeLine(redactText(note.stderrFirstLine, envValues))})`;
  }
  const shownEvent = note.spec.form === "lifecycle" ? note.spec.event : event === "post_tool_failure" ? "post_tool" : event;
  // The label is config text (a hook dir is named by its directory): escaped as in the review.
  return `agent: hook ${escapeControls(note.spec.label)} (${shownEvent}) failed: ${note.category}: ${detail} — ${note.outcome}`;
}

function reportRun(ctx: DispatchContext, input: HookEventInput, run: HookRun, targetRan: boolean | null): void {
  ctx.sinks.record?.({
    type: "hook_lifecycle",
    fields: lifecycleFields(run.spec, input, run.hookIndex, {
      status: run.status,
      category: run.category,
      elapsed_ms: run.elapsedMs,
      message: run.reply.failure?.detail ?? null,
      target_ran: targetRan,
    }),
  });
}

function categoryOf(category: string): FailureCategory {
  return FAILURE_CATEGORIES.find((known) => known === category) ?? "exit";
}

function rowOf(spec: HookSpec, status: HookRow["status"], category: string | null, elapsedMs: number): HookRow {
  return { label: spec.label, scope: spec.scope, form: spec.form, dialect: spec.dialect, status, category, elapsed_ms: elapsedMs };
}

/** Hook dirs' `async`, and Claude Code's `async` on lifecycle commands: never merged, never waited for (D15). */
function isAsyncHook(spec: HookSpec): boolean {
  return spec.form === "dir" ? spec.async : spec.form === "lifecycle" && spec.async === true;
}

function onceKey(spec: HookSpec, input: HookEventInput): string | undefined {
  return spec.form === "lifecycle" && spec.once === true ? `${input.sessionId}\u0000${spec.source}\u0000${spec.field}` : undefined;
}

async function runTracked(ctx: DispatchContext, spec: HookSpec, input: HookEventInput, hookIndex: number): Promise<HookRun> {
  const once = onceKey(spec, input);
  if (once !== undefined) ctx.onceStarted?.add(once);
  if (spec.form === "lifecycle" && spec.statusMessage !== undefined) ctx.sinks.statusLine?.(spec.statusMessage);
  ctx.sinks.record?.({ type: "hook_lifecycle", fields: lifecycleFields(spec, input, hookIndex) });
  return executeHook(ctx, spec, input, spec.form === "list" ? spec.index : hookIndex);
}

/**
 * A run the merge found failed although the process succeeded (a replaced input that fails the
 * tool schema, D8): its row and records must say failed/<category> too (MERGE-10).
 */
function failedByMerge(run: HookRun, before: MergeState, after: MergeState): HookRun {
  if (run.status !== "success" || after.failures.length <= before.failures.length) return run;
  const note = after.failures[after.failures.length - 1];
  if (!note || note.spec !== run.spec) return run;
  const category = categoryOf(note.category);
  return { ...run, status: "failed", category, reply: { ...run.reply, failure: { category, detail: note.detail } } };
}

/**
 * Claude Code runs the matching hooks of an event together, so consecutive lifecycle commands of
 * the claude dialect form one batch that runs concurrently; every other hook is a batch of its own
 * (hook dirs chain `modify`, seed 000; lists and the action dialect keep one-at-a-time). Results are
 * still folded in declared order.
 */
export function isConcurrent(spec: HookSpec): boolean {
  return spec.form === "lifecycle" && spec.dialect === "claude" && !isAsyncHook(spec);
}

/** `specs` cut into batches in declared order: runs of concurrent hooks together, the rest alone. */
export function batchesOf(specs: readonly HookSpec[]): HookSpec[][] {
  const batches: HookSpec[][] = [];
  for (const spec of specs) {
    const last = batches[batches.length - 1];
    const first = last?.[0];
    if (last !== undefined && first !== undefined && isConcurrent(first) && isConcurrent(spec)) last.push(spec);
    else batches.push([spec]);
  }
  return batches;
}

interface Dispatch {
  readonly ctx: DispatchContext;
  readonly input: HookEventInput;
  readonly planned: readonly HookSpec[];
  state: MergeState;
  readonly rows: HookRow[];
  readonly asyncRows: Promise<HookRow>[];
}

/** Starts every hook of a batch at once; their `started` records come first, in declared order. */
function runBatch(d: Dispatch, batch: readonly HookSpec[], input: HookEventInput): Promise<HookRun[]> {
  return Promise.all(batch.map((spec) => runTracked(d.ctx, spec, input, d.planned.indexOf(spec))));
}

/**
 * Post phase (D13): all hook dirs (sync and async) start together; when the sync ones have ended,
 * the rest run batch by batch in declared order. No stop cancels a later post hook; the merge
 * folds every run in declared order, whatever the finish order.
 */
async function runPostPhase(d: Dispatch): Promise<void> {
  const { ctx, input, planned } = d;
  const runs: HookRun[] = [];
  const syncDirs: Promise<HookRun>[] = [];
  for (const [index, spec] of planned.entries()) {
    if (isAsyncHook(spec)) d.asyncRows.push(startAsync(ctx, spec, input, index));
    else if (spec.form === "dir") syncDirs.push(runTracked(ctx, spec, input, index));
  }
  // Concurrent hooks are recorded once their batch has ended; a lone hook's terminal record
  // follows its own `started` record, so the JSONL reads started/terminal per hook (D25).
  const report = (batchRuns: readonly HookRun[]): void => {
    for (const run of batchRuns) {
      reportRun(ctx, input, run, true);
      d.rows.push(rowOf(run.spec, run.status, run.category, run.elapsedMs));
      runs.push(run);
    }
  };
  report(await Promise.all(syncDirs));
  for (const batch of batchesOf(planned.filter((spec) => spec.form !== "dir" && !isAsyncHook(spec)))) report(await runBatch(d, batch, input));
  runs.sort((a, b) => planned.indexOf(a.spec) - planned.indexOf(b.spec));
  for (const run of runs) d.state = step(d.state, run, ctx.merge).state;
}

/** The event as the merge left it so far: a replaced tool input and a rewritten prompt chain on. */
function chainedInput(input: HookEventInput, state: MergeState): HookEventInput {
  const toolInput = input.tool && state.toolInput ? { ...input, tool: { ...input.tool, input: state.toolInput } } : input;
  return state.prompt !== undefined ? { ...toolInput, fields: { ...toolInput.fields, prompt: state.prompt } } : toolInput;
}

/**
 * Every other event (D13): batch after batch in declared order; each batch sees the input as the
 * batches before it left it, and its runs fold in declared order. The first deny or block halts:
 * later batches are skipped; later runs of the same batch (already run) are recorded, not merged.
 */
async function runChain(d: Dispatch): Promise<void> {
  const { ctx, input } = d;
  let halted = false;
  for (const batch of batchesOf(d.planned)) {
    if (halted) {
      for (const spec of batch) d.rows.push(rowOf(spec, "skipped", null, 0));
      continue;
    }
    const hookInput = chainedInput(input, d.state);
    const lone = batch[0];
    if (batch.length === 1 && lone !== undefined && isAsyncHook(lone)) {
      // Claude Code's async: it sees the event as it stands, and the chain goes on without it.
      d.asyncRows.push(startAsync(ctx, lone, hookInput, d.planned.indexOf(lone)));
      continue;
    }
    for (let run of await runBatch(d, batch, hookInput)) {
      if (!halted) {
        const folded = step(d.state, run, ctx.merge);
        run = failedByMerge(run, d.state, folded.state);
        d.state = folded.state;
        halted = folded.halt;
      }
      const targetRan = input.event === "pre_tool" ? (d.state.denied ? false : null) : null;
      reportRun(ctx, input, run, targetRan);
      d.rows.push(rowOf(run.spec, run.status, run.category, run.elapsedMs));
    }
  }
}

/** Dispatches one event occurrence and returns the merged outcome. Never throws. */
export async function dispatchEvent(ctx: DispatchContext, input: HookEventInput): Promise<EventOutcome> {
  // `once` hooks that already started in this session are not planned again.
  const planned = planHooks(ctx.hooks, input, ctx.readonlyMode).filter((spec) => {
    const once = onceKey(spec, input);
    return once === undefined || !(ctx.onceStarted?.has(once) ?? false);
  });
  const d: Dispatch = { ctx, input, planned, state: initialState(input.event, input.tool?.name, input.tool?.input), rows: [], asyncRows: [] };
  if (input.event === "post_tool" || input.event === "post_tool_failure") await runPostPhase(d);
  else await runChain(d);
  const { state, rows, asyncRows } = d;

  for (const note of state.failures) emitFailure(ctx, input, note);
  for (const diagnostic of state.diagnostics) {
    ctx.sinks.record?.({
      type: "hook_diagnostic",
      fields: { ...lifecycleFields(diagnostic.spec, input, diagnostic.hookIndex), status: "warning", message: diagnostic.message },
    });
  }
  for (const injection of state.injections) {
    ctx.sinks.record?.({
      type: "hook_context_injection",
      fields: {
        schema_version: 1,
        phase: phaseOf(injection.spec, input.event),
        label: injection.spec.label,
        target_tool: targetTool(input),
        status: injection.status,
        item_count: injection.status === "success" ? injection.items.length : 0,
        byte_count: injection.status === "success" ? injection.byteCount : 0,
        max_bytes: injection.spec.form === "list" ? injection.spec.providerContextMaxBytes : 0,
        hook_index: injection.spec.form === "list" ? injection.spec.index : injection.hookIndex,
      },
    });
  }
  const { decision, reason } = decisionOf(state);
  return { state, decision, reason, rows, asyncRows: Promise.all(asyncRows) };
}

/**
 * Starts one async hook (a hook dir's or a lifecycle command's `async`, D15): it never delays the event, reports its own records and
 * failure line when it ends, and can be cancelled on its own at the exit grace. Its listener on the
 * engine's signal is removed when it ends, so a long session does not pile them up.
 */
function startAsync(ctx: DispatchContext, spec: HookSpec, input: HookEventInput, index: number): Promise<HookRow> {
  const cancel = new AbortController();
  const onAbort = (): void => cancel.abort();
  if (ctx.signal?.aborted) cancel.abort();
  else ctx.signal?.addEventListener("abort", onAbort, { once: true });
  const tracked = runTracked({ ...ctx, signal: cancel.signal }, spec, input, index).then((run) => {
    reportRun(ctx, input, run, true);
    if (run.reply.failure) {
      const { category, detail } = run.reply.failure;
      emitFailure(ctx, input, {
        spec,
        hookIndex: run.hookIndex,
        category,
        detail,
        outcome: "ignored (async)",
        loud: true,
        stderrFirstLine: run.stderrFirstLine,
      });
    }
    return rowOf(spec, run.status, run.category, run.elapsedMs);
  });
  const settled = tracked.finally(() => {
    ctx.signal?.removeEventListener("abort", onAbort);
    ctx.asyncRuns.delete(settled);
  });
  ctx.asyncRuns.set(settled, cancel);
  return settled;
}

function emitFailure(ctx: DispatchContext, input: HookEventInput, note: FailureNote): void {
  // Policy `ignore`: the terminal hook_lifecycle record says failed; no line, no diagnostic (TOOL-16).
  if (!note.loud) return;
  ctx.sinks.record?.({
    type: "hook_diagnostic",
    fields: { ...lifecycleFields(note.spec, input, note.hookIndex), status: "failed", category: categoryOf(note.category), message: note.detail },
  });
  ctx.sinks.failureLine?.(formatFailureLine(note, input.event, input.strippedEnvValues));
}

/**
 * Waits for async hooks at most `graceMs`, then cancels only those still running (D15): their
 * groups are killed and they are recorded failed. Other hooks (session_end) are untouched.
 */
export async function settleAsyncHooks(ctx: DispatchContext, graceMs: number): Promise<void> {
  if (ctx.asyncRuns.size === 0) return;
  const all = Promise.all([...ctx.asyncRuns.keys()]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), graceMs);
  });
  const first = await Promise.race([all.then(() => "done" as const), expired]);
  clearTimeout(timer);
  if (first === "timeout") {
    for (const cancel of ctx.asyncRuns.values()) cancel.abort();
    await all;
  }
}
