/** `agent sessions list | show ID` (CLI-28): reads session files; never reruns a hook. */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { AgentError } from "../errors.ts";
import { agentHomeDir } from "../config/paths.ts";
import { findSession, formatSessionList, formatSessionShow, listSessions, readSession } from "../session/store.ts";

export async function runSessionsCommand(runtime: Runtime, io: CliIO, options: { action: string; id: string | undefined }): Promise<number> {
  const home = agentHomeDir(runtime.env(), runtime.platform.homedir, runtime.cwd());
  if (options.action === "list") {
    io.out(formatSessionList(listSessions(runtime, home)));
    return 0;
  }
  if (options.action === "show") {
    if (options.id === undefined) throw new AgentError("usage", "sessions show needs an ID", { fix: "see agent sessions list" });
    const path = findSession(runtime, home, options.id);
    if (path === undefined) throw new AgentError("config", `no session "${options.id}" in ${home}/sessions`, { fix: "see agent sessions list" });
    const read = readSession(runtime, path);
    if (!read.ok) throw new AgentError("config", read.error);
    io.out(formatSessionShow(options.id, read.records));
    for (const problem of read.problems) io.err(`agent: ${path}:${problem.line}: ${problem.message}\n`);
    return 0;
  }
  throw new AgentError("usage", `unknown sessions command "${options.action}"`, { fix: "use list or show ID" });
}
