/**
 * `bash_output` and `kill_shell` (Claude Code's BashOutput and KillShell): read
 * what a `run_in_background` command printed since the last read, and stop it. Both work on the
 * session's background shells (background-shells.ts); an unknown id is an error naming the ids.
 */
import type { Tool, ToolContext, ToolResult } from "./types.ts";
import type { BackgroundShells, ShellReport } from "./background-shells.ts";
import { bashOutputInputSchema, killShellInputSchema } from "./schemas.ts";
import { defineTool } from "./define-tool.ts";
import { compileSearchRegex } from "./regex-guard.ts";
import { failure } from "./output.ts";

function unknownShell(shells: BackgroundShells, id: string): ToolResult {
  const ids = shells.ids();
  return failure(`no background shell "${id}"${ids.length > 0 ? `; known: ${ids.join(", ")}` : "; none was started (bash with run_in_background: true)"}`);
}

function statusLine(report: ShellReport): string {
  switch (report.status) {
    case "running":
      return "status: running";
    case "killed":
      return "status: killed";
    default:
      return report.signal !== null
        ? `status: ${report.status} (killed by signal ${report.signal})`
        : `status: ${report.status} (exit code ${report.exitCode ?? "unknown"})`;
  }
}

function reportResult(report: ShellReport, filter: RegExp | null): ToolResult {
  let output = report.output;
  if (filter !== null)
    output = output
      .split("\n")
      .filter((line) => filter.test(line))
      .join("\n");
  const parts = [statusLine(report)];
  if (report.dropped > 0) parts.push(`[${report.dropped} earlier bytes were dropped: only the newest output is kept]`);
  parts.push(output.length > 0 ? output.replace(/\n$/, "") : "[no new output]");
  const metadata: Record<string, unknown> = { shell_id: report.id, status: report.status, exit_code: report.exitCode };
  if (report.signal !== null) metadata.signal = report.signal;
  if (report.dropped > 0) metadata.dropped_bytes = report.dropped;
  return { success: true, content: parts.join("\n"), metadata };
}

function registry(ctx: ToolContext): BackgroundShells | null {
  return ctx.shells ?? null;
}

export const bashOutputTool: Tool = defineTool({
  name: "bash_output",
  description:
    "Read the output a background shell (bash with run_in_background) printed since the last read, with its status (running, completed, failed, killed). filter: a regex; only matching lines are shown.",
  schema: bashOutputInputSchema,
  run(input, ctx) {
    const shells = registry(ctx);
    if (shells === null) return failure("no background shells in this context");
    let filter: RegExp | null = null;
    if (input.filter !== undefined) {
      const compiled = compileSearchRegex(input.filter, { ignoreCase: false });
      if (!compiled.ok) return failure(`invalid filter: ${compiled.message}`);
      filter = compiled.regex;
    }
    const report = shells.read(input.bash_id);
    return report === null ? unknownShell(shells, input.bash_id) : reportResult(report, filter);
  },
});

export const killShellTool: Tool = defineTool({
  name: "kill_shell",
  description: "Stop a background shell (SIGTERM to its process group, SIGKILL after a short grace) and return its last output.",
  schema: killShellInputSchema,
  async run(input, ctx) {
    const shells = registry(ctx);
    if (shells === null) return failure("no background shells in this context");
    const report = await shells.kill(input.shell_id);
    return report === null ? unknownShell(shells, input.shell_id) : reportResult(report, null);
  },
});
