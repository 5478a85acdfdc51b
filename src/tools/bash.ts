/**
 * `bash`: runs `/bin/bash -c <command>` (not a login shell) in the agent cwd, as the leader of a new
 * process group, with the caller's already-stripped env (D18) minus BASH_ENV, ENV and exported
 * functions (RUN-11), through the runtime's process wrapper (`runInGroup`, shared with hooks): on
 * timeout or cancel the group gets SIGTERM, then SIGKILL after BASH_KILL_GRACE_MS; once bash exits,
 * pipes get BASH_DRAIN_GRACE_MS to drain and the rest of the group is killed the same way, so a
 * background `sleep 300 &` never outlives the call or holds it open. The group is in the live
 * registry meanwhile, so a second Ctrl-C, SIGTERM or SIGHUP kills it too. `run_in_background`
 * hands the same spawn to the session's background shells (background-shells.ts) instead.
 */
import type { Tool, ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { BASH_TIMEOUT_DEFAULT_MS, bashInputSchema, type BashInput } from "./schemas.ts";
import { failure } from "./output.ts";
import { defineTool } from "./define-tool.ts";
import { boundOutput, OutputCollector, type OutputFiles } from "./bash-output.ts";
import { runInGroup } from "../runtime/run-group.ts";
import { shellFor } from "../runtime/shell.ts";

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

/** `run_in_background`: started in the session's shell registry; the call returns at once with its id. */
async function startBackground(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.shells === undefined) return failure("run_in_background is not available here (no background shell registry in this context)");
  if (ctx.signal?.aborted) return failure("[command cancelled before it started]", { exit_code: null, cancelled: true });
  const started = await ctx.shells.start({
    argv: shellFor(ctx.runtime, ctx.env).argv(input.command),
    cwd: ctx.cwd,
    env: bashEnv(ctx.env),
    command: input.command,
    killGraceMs: BASH_KILL_GRACE_MS,
    drainGraceMs: BASH_DRAIN_GRACE_MS,
  });
  if (!started.ok) return failure(started.error, { exit_code: null });
  return {
    success: true,
    content: `Command running in background with ID: ${started.id}. Read its output with bash_output (bash_id "${started.id}"); stop it with kill_shell (shell_id "${started.id}"). It is killed when the session ends.`,
    metadata: { background: true, shell_id: started.id },
  };
}

/** The session's directory for large outputs (private: 0700, files 0600); absent: outputs stay inline. */
function outputFiles(ctx: ToolContext): OutputFiles | undefined {
  const dir = ctx.outputDir;
  if (dir === undefined) return undefined;
  const fs = ctx.runtime.fs;
  return {
    dir,
    mkdir: (path) => fs.mkdir(path, { recursive: true, mode: 0o700 }),
    write: (path, name, text) => fs.writeText(`${path}/${name}`, text, { mode: 0o600 }),
    randomName: () => ctx.runtime.randomId(8),
  };
}

async function runCommand(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
  if (input.run_in_background === true) return startBackground(input, ctx);
  const timeoutMs = input.timeout ?? BASH_TIMEOUT_DEFAULT_MS;
  if (ctx.signal?.aborted) return failure("[command cancelled before it started]", { exit_code: null, cancelled: true });
  const output = new OutputCollector();
  // Each stream kept apart too, head and tail, for `details` (claude's stdout/stderr).
  const stdoutOnly = new OutputCollector(BASH_STREAM_DETAIL_BYTES, BASH_STREAM_DETAIL_BYTES);
  const stderrOnly = new OutputCollector(BASH_STREAM_DETAIL_BYTES, BASH_STREAM_DETAIL_BYTES);
  // stdout and stderr combined in arrival order; the collectors bound memory, so a sink never refuses.
  const sinkOf = (own: OutputCollector) => ({
    push: (chunk: Uint8Array): boolean => {
      output.push(chunk);
      own.push(chunk);
      ctx.onOutput?.(chunk);
      return true;
    },
  });
  const run = await runInGroup(ctx.runtime, {
    argv: shellFor(ctx.runtime, ctx.env).argv(input.command),
    cwd: ctx.cwd,
    env: bashEnv(ctx.env),
    stdin: null,
    timeoutMs,
    stdout: sinkOf(stdoutOnly),
    stderr: sinkOf(stderrOnly),
    killGraceMs: BASH_KILL_GRACE_MS,
    drainGraceMs: BASH_DRAIN_GRACE_MS,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (run.stop === "spawn") return failure(`cannot start ${shellFor(ctx.runtime, ctx.env).program}: ${run.code}: ${run.message}`, { exit_code: null });
  const stopped = run.stop === "timeout" ? "timeout" : run.stop === "cancelled" ? "cancelled" : undefined;
  const status = run.exit ?? { code: null, signal: null };

  const bounded = boundOutput(output.text(), outputFiles(ctx), output.bytes);
  const text = bounded.content;
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
  if (bounded.path !== null) metadata.output_file = bounded.path;
  // Claude Code trims trailing whitespace of both streams and calls a timeout or cancel "interrupted".
  const details: ToolDetails = { tool: "bash", stdout: stdoutOnly.text().trimEnd(), stderr: stderrOnly.text().trimEnd(), interrupted: stopped !== undefined };
  return { success: stopped === undefined && status.code === 0, content, metadata, details };
}

export const bashTool: Tool = defineTool({
  name: "bash",
  description:
    "Run a shell command with bash -c in the agent's cwd (on Windows: Git Bash when installed, else PowerShell; the environment block names the shell). stdout and stderr are combined; output is capped. timeout is in milliseconds (default 120000, max 600000). Background processes are killed when the command ends. With run_in_background: true the command keeps running (no timeout) and the call returns a shell id at once: read new output with bash_output, stop it with kill_shell; it is killed when the session ends.",
  schema: bashInputSchema,
  run: runCommand,
});
