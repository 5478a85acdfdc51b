/**
 * Runs ONE hook for one event: preflight → spawn plan → encode → run → decode. Pure stages around a
 * single process run; never throws. The result says what the hook replied and how it ended; the
 * failure policy is applied later by the merge (src/hooks/merge/merge.ts), which knows the event.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { HookSpec, FailureCategory, LifecycleHookSpec } from "../types.ts";
import type { EncodedRequest, HookEventInput, HookReply, ProcessRun } from "../dialects/types.ts";
import type { Dialect } from "../dialects/types.ts";
import { cleanupSpill } from "../spill.ts";
import { preflight } from "../shell/preflight.ts";
import { planDirSpawn, planShellSpawn, type SpawnPlan } from "../shell/spawn-plan.ts";
import { findGitBash } from "../../runtime/shell.ts";
import { runProcess, type ProcessGroups, type RunRequest, type RunResult } from "./runner.ts";
import { buildHookEnv } from "../shell/env.ts";
import type { Provider } from "../../providers/types.ts";
import { runHttpHook } from "./http.ts";
import { mergeLoginEnv, type LoginEnvCache } from "./login-env.ts";
import { runPromptHook } from "./prompt.ts";

/** Per-form stream caps (D3 hook dirs truncate; lifecycle 1 MiB output-limit; lists their own caps, D14). */
export const DIR_STREAM_CAP_BYTES = 1024 * 1024;
export const LIFECYCLE_STREAM_CAP_BYTES = 1024 * 1024;

export interface ExecuteContext {
  readonly runtime: Runtime;
  /** Environment after D18 stripping; dialect names are added per hook. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /**
   * The session's `CLAUDE_ENV_FILE` variables: set on top of `baseEnv` for project hooks only. A
   * user hook spawns as the user configured it, whatever a session_start hook wrote (a project
   * hook's `PATH`, `NODE_OPTIONS` or `HOME` must not change what the user's guard runs or reads).
   */
  readonly sessionEnv?: Readonly<Record<string, string>>;
  readonly spill?: (bytes: Uint8Array) => { path: string; dir: string } | null;
  /** Cancels running hooks (SIGINT, or the async grace at exit). */
  readonly signal?: AbortSignal;
  /** Tracks every live hook process group so an immediate exit can kill them (LOOP-36). */
  readonly groups?: ProcessGroups;
  /** The dialect of a hook (src/hooks/dialects/index.ts `createDialects`). */
  readonly dialectFor: (spec: HookSpec) => Dialect;
  /** http hooks' fetch (default: the global one). */
  readonly fetch?: typeof fetch;
  /** The provider prompt hooks ask, or why there is none; called only when a prompt hook runs. */
  readonly promptProvider?: () => Provider | string;
  /** List hooks' login environment, captured once (src/hooks/handlers/login-env.ts); absent: `/bin/bash -lc` per run. */
  readonly loginEnv?: LoginEnvCache;
}

export interface HookRun {
  readonly spec: HookSpec;
  /** Index used for `hook.index` and `hook_index` (D25). */
  readonly hookIndex: number;
  readonly reply: HookReply;
  readonly status: "success" | "failed";
  readonly category: FailureCategory | null;
  readonly elapsedMs: number;
  /** First stderr line of the hook, for hook-dir failure lines only (SEC-20 sanitises it). */
  readonly stderrFirstLine: string;
  /** stdout or stderr went past a truncating cap (D3): a diagnostic, not a failure. */
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
}

function failedReply(category: FailureCategory, detail: string): HookReply {
  return { context: [], hiddenContext: [], suppressOutput: false, warnings: [], failure: { category, detail } };
}

function firstStderrLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes.subarray(0, 4096));
  return text.split(/\r?\n/).find((line) => line.trim().length > 0) ?? "";
}

/** Runs one hook to completion (or failure). Never throws. */
export async function executeHook(ctx: ExecuteContext, spec: HookSpec, input: HookEventInput, hookIndex: number): Promise<HookRun> {
  const started = ctx.runtime.now();
  const finish = (reply: HookReply, extra: RunExtras = {}): HookRun => ({
    spec,
    hookIndex,
    reply,
    status: reply.failure ? "failed" : "success",
    category: reply.failure?.category ?? null,
    elapsedMs: Math.max(0, Math.round(ctx.runtime.now() - started)),
    stderrFirstLine: extra.stderrFirstLine ?? "",
    truncated: extra.truncated ?? { stdout: false, stderr: false },
  });

  // A trusted project's files must still be the trusted bytes at the moment of the spawn.
  const changed = spec.trustCheck?.() ?? null;
  if (changed !== null) return finish({ ...failedReply("runner", changed), failure: { category: "runner", detail: changed, closed: true } });

  if (spec.form === "list") {
    const verdict = preflight(spec.command, { absolutePaths: spec.absolutePaths });
    if (!verdict.ok) return finish(failedReply("runner", `preflight: ${verdict.detail}`));
  }

  if (spec.form === "lifecycle" && spec.handler !== undefined) return finish(await runHandler(ctx, spec, input, hookIndex));
  const ran = await runHookProcess(ctx, spec, input, hookIndex);
  return finish(ran.reply, ran.extra);
}

/** What a process run adds to its reply in a HookRun. */
type RunExtras = Partial<Pick<HookRun, "stderrFirstLine" | "truncated">>;

/** A command or hook-dir hook as a process: plan → encode → run → decode. A failed stage is a failed reply. */
async function runHookProcess(ctx: ExecuteContext, spec: HookSpec, input: HookEventInput, hookIndex: number): Promise<{ reply: HookReply; extra?: RunExtras }> {
  const baseEnv = spec.scope === "project" && ctx.sessionEnv !== undefined ? { ...ctx.baseEnv, ...ctx.sessionEnv } : ctx.baseEnv;
  const plan = planSpawn(ctx, spec, input, baseEnv);
  if (!plan.ok) return { reply: failedReply("runner", plan.detail) };

  let encoded: EncodedRequest;
  try {
    encoded = ctx.dialectFor(spec).encode(spec, input, {
      hookIndex,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      ...(ctx.spill ? { spill: ctx.spill } : {}),
    });
  } catch (error) {
    return { reply: failedReply("stdin", `could not build the payload: ${error instanceof Error ? error.message : String(error)}`) };
  }

  const hookEnv = { ...hookEnvFor(baseEnv, spec, input), ...encoded.env };
  const { argv, env } = await withLoginEnv(ctx, plan.argv, plan.cwd, hookEnv);
  const result = await runProcess(ctx.runtime, {
    argv,
    cwd: plan.cwd,
    env,
    stdin: encoded.stdin,
    timeoutMs: spec.timeoutMs,
    shellForm: spec.form !== "dir",
    ...streamCaps(spec),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.groups ? { groups: ctx.groups } : {}),
  });
  // The spill file and its directory go once the hook has exited (D14); a leftover is swept at start-up.
  if (encoded.cleanup.length > 0) cleanupSpill(ctx.runtime.fs, encoded.cleanup);

  const reply = decodeReply(ctx, spec, input, result);
  return { reply, extra: { stderrFirstLine: spec.form === "dir" ? firstStderrLine(result.stderr) : "", truncated: result.truncated } };
}

function planSpawn(ctx: ExecuteContext, spec: HookSpec, input: HookEventInput, baseEnv: Readonly<Record<string, string>>): SpawnPlan {
  const which = (command: string): string | null => ctx.runtime.which(command, baseEnv.PATH);
  if (spec.form === "dir") return planDirSpawn(ctx.runtime.fs, ctx.runtime.platform, which, spec);
  return planShellSpawn(
    ctx.runtime.platform,
    which,
    spec.form,
    spec.command,
    input.cwd,
    input.projectDir,
    ctx.runtime.platform.os === "win32" ? findGitBash(ctx.runtime, ctx.baseEnv) : null,
  );
}

function hookEnvFor(baseEnv: Readonly<Record<string, string>>, spec: HookSpec, input: HookEventInput): Record<string, string> {
  return buildHookEnv(baseEnv, spec.dialect, {
    event: spec.event,
    sessionId: input.sessionId,
    cwd: input.cwd,
    projectDir: input.projectDir,
    transcriptPath: input.transcriptPath,
    envFile: input.event === "session_start" ? (input.envFile ?? null) : null,
    pluginRoot: spec.form === "dir" ? spec.dir : spec.form === "lifecycle" ? (spec.pluginRoot ?? null) : null,
  });
}

function streamCaps(spec: HookSpec): Pick<RunRequest, "stdoutCapBytes" | "stderrCapBytes" | "overflow"> {
  if (spec.form === "list") return { stdoutCapBytes: spec.stdoutMaxBytes, stderrCapBytes: spec.stderrMaxBytes, overflow: "fail" };
  if (spec.form === "lifecycle") return { stdoutCapBytes: LIFECYCLE_STREAM_CAP_BYTES, stderrCapBytes: LIFECYCLE_STREAM_CAP_BYTES, overflow: "fail" };
  return { stdoutCapBytes: DIR_STREAM_CAP_BYTES, stderrCapBytes: DIR_STREAM_CAP_BYTES, overflow: "truncate" };
}

function decodeReply(ctx: ExecuteContext, spec: HookSpec, input: HookEventInput, result: RunResult): HookReply {
  const run: ProcessRun = {
    kind: result.kind,
    exit: result.exit,
    stdout: result.stdout,
    stderr: result.stderr,
    detail: result.detail,
  };
  try {
    return ctx.dialectFor(spec).decode(spec, input, run);
  } catch (error) {
    return failedReply("exit", `could not decode the reply: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `promise`'s value, or null as soon as `signal` is aborted (at once if it already is). */
function untilAborted<T>(promise: Promise<T | null>, signal: AbortSignal | undefined): Promise<T | null> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(null);
      },
    );
  });
}

/**
 * A list hook's `/bin/bash -lc COMMAND` becomes `/bin/bash -c COMMAND` under the session's captured
 * login environment; without a capture (none configured, or it failed) the plan stays as it is.
 */
async function withLoginEnv(
  ctx: ExecuteContext,
  argv: string[],
  cwd: string,
  hookEnv: Record<string, string>,
): Promise<{ argv: string[]; env: Record<string, string> }> {
  const [shell, flag, ...rest] = argv;
  if (ctx.loginEnv === undefined || shell !== "/bin/bash" || flag !== "-lc") return { argv, env: hookEnv };
  // The capture is shared by the engine's hooks and is not this hook's to cancel; a cancel while it
  // runs ends the wait at once (runProcess then reports the hook cancelled without spawning it).
  const login = await untilAborted(ctx.loginEnv.get(ctx.runtime, ctx.baseEnv, cwd, ctx.groups), ctx.signal);
  if (login === null) return { argv, env: hookEnv };
  return { argv: [shell, "-c", ...rest], env: mergeLoginEnv(login.env, login.base, hookEnv) };
}

/** An http or prompt lifecycle hook: the same encode and decode, no process. */
async function runHandler(ctx: ExecuteContext, spec: LifecycleHookSpec, input: HookEventInput, hookIndex: number): Promise<HookReply> {
  const handler = spec.handler;
  if (handler === undefined) return failedReply("runner", "not an http or prompt hook");
  let stdin: Uint8Array;
  try {
    // No spill: the payload goes whole over the wire (or into the prompt), never to a file.
    stdin = ctx.dialectFor(spec).encode(spec, input, { hookIndex, timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") }).stdin;
  } catch (error) {
    return failedReply("stdin", `could not build the payload: ${error instanceof Error ? error.message : String(error)}`);
  }
  const outcome =
    handler.type === "http"
      ? await runHttpHook({
          spec,
          handler,
          stdin,
          strippedEnvValues: input.strippedEnvValues,
          fullEnv: ctx.runtime.env(),
          hookEnv: ctx.baseEnv,
          fetch: ctx.fetch ?? globalThis.fetch.bind(globalThis),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        })
      : await runPromptHook({
          spec,
          handler,
          stdin,
          provider: ctx.promptProvider?.() ?? "prompt hooks need a provider (agent hooks test: pass --provider, e.g. --provider script --script FILE)",
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
  if (!outcome.ok) return failedReply(outcome.category, outcome.detail);
  try {
    return ctx.dialectFor(spec).decode(spec, input, outcome.run);
  } catch (error) {
    return failedReply("exit", `could not decode the reply: ${error instanceof Error ? error.message : String(error)}`);
  }
}
