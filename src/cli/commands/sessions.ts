/**
 * `agent sessions list | show ID` (CLI-28): reads session files; never reruns a hook. `show` prints
 * the conversation, then one row per finished hook run from the session's `hook_lifecycle` records.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { agentHomeDir } from "../../config/paths.ts";
import { listSessions, readSession, resolveSession } from "../../session/store.ts";
import { formatSessionList, formatSessionShow } from "../../session/format.ts";
import type { SessionRecord } from "../../session/records.ts";

/** One line per terminal `hook_lifecycle` record (the `started` ones add nothing a reader needs). */
export function formatHookRows(records: readonly SessionRecord[]): string {
  const rows: string[] = [];
  for (const record of records) {
    if (record.type !== "hook_lifecycle" || record.status === "started") continue;
    const parts = [`[hook ${record.label}]`, record.phase, record.status];
    if (record.category !== null) parts.push(record.category);
    if (record.elapsed_ms !== null) parts.push(`${Math.round(record.elapsed_ms)}ms`);
    if (record.tool_call_id !== null) parts.push(`call ${record.tool_call_id}`);
    if (record.message !== null) parts.push(`— ${record.message}`);
    rows.push(`${parts.join("  ")}\n`);
  }
  return rows.length > 0 ? `hooks:\n${rows.join("")}` : "";
}

export async function runSessionsCommand(runtime: Runtime, io: CliIO, options: { action: string; id: string | undefined }): Promise<number> {
  const home = agentHomeDir(runtime.env(), runtime.platform.homedir, runtime.cwd());
  if (options.action === "list") {
    io.out(formatSessionList(listSessions(runtime, home)));
    return 0;
  }
  if (options.action === "show") {
    if (options.id === undefined) throw new AgentError("usage", "sessions show needs an ID", { fix: "see agent sessions list" });
    const found = resolveSession(runtime, home, options.id);
    if (!found.ok) throw new AgentError("config", found.message, { fix: "see agent sessions list" });
    const path = found.path;
    const read = readSession(runtime, path);
    if (!read.ok) throw new AgentError("config", read.error);
    io.out(formatSessionShow(found.id, read.records));
    io.out(formatHookRows(read.records));
    for (const problem of read.problems) io.err(`agent: ${path}:${problem.line}: ${problem.message}\n`);
    return 0;
  }
  throw new AgentError("usage", `unknown sessions command "${options.action}"`, { fix: "use list or show ID" });
}
