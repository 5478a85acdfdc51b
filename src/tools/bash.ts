/**
 * `bash`: runs `/bin/bash -c <command>` (not a login shell) in the agent cwd, as the leader of a new
 * process group, with the caller's already-stripped env (D18) minus BASH_ENV, ENV and exported
 * functions (RUN-11). On timeout or cancel the group gets SIGTERM, then SIGKILL after
 * BASH_KILL_GRACE_MS. Once bash exits, pipes get BASH_DRAIN_GRACE_MS to drain and then the whole
 * group is SIGKILLed, so a background `sleep 300 &` never outlives the call or holds it open.
 */
import type { Tool, ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { BASH_TIMEOUT_DEFAULT_MS, bashInputSchema, toolJsonSchema, validateWith, type BashInput } from "./schemas.ts";
import { describeError, failure } from "./output.ts";
import { OutputCollector } from "./bash-output.ts";

export const BASH_PATH = "/bin/bash";
export const BASH_KILL_GRACE_MS = 500;
export const BASH_DRAIN_GRACE_MS = 200;
/** Each stream kept apart for `details` (claude's stdout/stderr): head and tail bytes, as Claude Code caps at 30000 chars. */
export const BASH_STREAM_DETAIL_BYTES = 16 * 1024;

/** The child env: `env` without the names bash would execute code from at startup. */
export function bashEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key === "BASH_ENV" || key === "ENV" || key.startsWith("BASH_FUNC_")) continue;
    out[key] = value;
  }
  return out;
}

/** Reads `stream` into every sink; registers a canceller so a pipe held by a dead group can be dropped. */
async function pump(stream: ReadableStream<Uint8Array> | null, sinks: readonly OutputCollector[], cancels: Array<() => void>): Promise<void> {
  if (stream === null) return;
  const reader = stream.getReader();
  cancels.push(() => {
    reader.cancel().catch(() => undefined);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value !== undefined) for (const sink of sinks) sink.push(value);
    }
  } catch {
    // A cancelled or broken pipe just ends the output.
  }
}

async function runCommand(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
  const timeoutMs = input.timeout ?? BASH_TIMEOUT_DEFAULT_MS;
  if (ctx.signal?.aborted) return failure("[command cancelled before it started]", { exit_code: null, cancelled: true });
  const spawned = await ctx.runtime.spawn({
    argv: [BASH_PATH, "-c", input.command],
    cwd: ctx.cwd,
    env: bashEnv(ctx.env),
    newGroup: true,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (!spawned.ok) return failure(`cannot start ${BASH_PATH}: ${spawned.code}: ${spawned.message}`, { exit_code: null });
  const child = spawned.child;
  const output = new OutputCollector();
  const cancels: Array<() => void> = [];
  const stdoutOnly = new OutputCollector(BASH_STREAM_DETAIL_BYTES, BASH_STREAM_DETAIL_BYTES);
  const stderrOnly = new OutputCollector(BASH_STREAM_DETAIL_BYTES, BASH_STREAM_DETAIL_BYTES);
  const pumps = Promise.all([pump(child.stdout, [output, stdoutOnly], cancels), pump(child.stderr, [output, stderrOnly], cancels)]);

  let stopped: "timeout" | "cancelled" | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: "timeout" | "cancelled") => {
    if (stopped !== undefined) return;
    stopped = reason;
    child.kill("SIGTERM");
    // Always follow with SIGKILL: a SIGTERM-ignoring child must not keep the call alive.
    killTimer = setTimeout(() => child.kill("SIGKILL"), BASH_KILL_GRACE_MS);
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  ctx.signal?.addEventListener("abort", onAbort, { once: true });

  const status = await child.exited;
  clearTimeout(timer);
  ctx.signal?.removeEventListener("abort", onAbort);
  await Promise.race([pumps, ctx.runtime.sleep(BASH_DRAIN_GRACE_MS)]);
  child.kill("SIGKILL");
  if (killTimer !== undefined) clearTimeout(killTimer);
  await Promise.race([pumps, ctx.runtime.sleep(BASH_DRAIN_GRACE_MS)]);
  for (const cancel of cancels) cancel();

  const text = output.text();
  const notes: string[] = [];
  if (stopped === "timeout") notes.push(`[command timed out after ${timeoutMs} ms]`);
  else if (stopped === "cancelled") notes.push("[command cancelled]");
  else if (status.signal !== null) notes.push(`[killed by signal ${status.signal}]`);
  else if (status.code !== 0) notes.push(`[exit code ${status.code}]`);
  const content = notes.length === 0 ? text : text.length === 0 ? notes.join("\n") : `${text.replace(/\n$/, "")}\n${notes.join("\n")}`;
  const metadata: Record<string, unknown> = { exit_code: status.code };
  if (status.signal !== null) metadata.signal = status.signal;
  if (stopped === "timeout") metadata.timed_out = true;
  if (stopped === "cancelled") metadata.cancelled = true;
  if (output.truncated) metadata.truncated = true;
  metadata.output_bytes = output.bytes;
  // Claude Code trims trailing whitespace of both streams and calls a timeout or cancel "interrupted".
  const details: ToolDetails = { tool: "bash", stdout: stdoutOnly.text().trimEnd(), stderr: stderrOnly.text().trimEnd(), interrupted: stopped !== undefined };
  return { success: stopped === undefined && status.code === 0, content, metadata, details };
}

export const bashTool: Tool = {
  name: "bash",
  description:
    "Run a shell command with /bin/bash -c in the agent's cwd. stdout and stderr are combined; output is capped. timeout is in milliseconds (default 120000, max 600000). Background processes are killed when the command ends.",
  parameters: toolJsonSchema("bash"),
  async execute(input, ctx) {
    const checked = validateWith(bashInputSchema, input);
    if (!checked.ok) return failure(`invalid input: ${checked.path}: ${checked.message}`);
    try {
      return await runCommand(checked.input, ctx);
    } catch (error) {
      return failure(`bash failed: ${describeError(error)}`);
    }
  },
};
