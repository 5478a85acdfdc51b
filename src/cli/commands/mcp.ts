/**
 * `agent mcp list [--json]`: every configured MCP server started (concurrently, each bounded by
 * its `startup_timeout_ms`), then its state, tools and error, then stopped. `agent mcp test SERVER`:
 * one server started, its tools listed, stopped; exit 1 when it does not start. Project servers
 * start only when the project is trusted (D17); untrusted ones are listed as `untrusted`.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { displayPath } from "../../config/warnings.ts";
import { isProjectTrusted, requireTrust } from "../trust-gate.ts";
import { createMcpManager } from "../../mcp/start.ts";
import type { ServerStatus } from "../../mcp/manager.ts";

export interface McpCommandOptions {
  readonly action: string;
  readonly server: string | undefined;
  readonly cwd: string;
  readonly json: boolean;
  readonly trust: boolean;
}

export async function runMcpCommand(runtime: Runtime, io: CliIO, options: McpCommandOptions): Promise<number> {
  const loaded = loadConfig(runtime, { cwd: options.cwd });
  const places = { projectRoot: loaded.projectRoot, userHome: runtime.platform.homedir };
  const mcpErrors = loaded.warnings.filter((w) => w.field.startsWith("mcp_servers"));
  if (options.action === "list") {
    const trusted = options.trust || isProjectTrusted(runtime, loaded);
    const startable = loaded.mcpServers.filter((spec) => trusted || spec.scope !== "project");
    const manager = createMcpManager(runtime, { servers: startable, cwd: options.cwd, onNotice: () => undefined });
    await manager.start();
    const statuses: (
      | ServerStatus
      | { name: string; scope: string; transport: string; file: string; state: "untrusted"; error: string; tools: string[]; skipped: string[]; stderr: string }
    )[] = [...manager.statuses()];
    await manager.close();
    for (const spec of loaded.mcpServers) {
      if (!startable.includes(spec)) {
        statuses.push({
          name: spec.name,
          scope: spec.scope,
          transport: spec.transport,
          file: spec.file,
          state: "untrusted",
          error: "project server not started: the project is not trusted (agent hooks trust)",
          tools: [],
          skipped: [],
          stderr: "",
        });
      }
    }
    if (options.json) {
      const config_errors = mcpErrors.map((w) => ({ file: w.file, field: w.field, message: w.message }));
      io.out(`${JSON.stringify({ servers: statuses.map(({ stderr: _stderr, ...rest }) => rest), config_errors })}\n`);
      return 0;
    }
    if (statuses.length === 0 && mcpErrors.length === 0) io.out("no MCP servers configured (add [mcp_servers.NAME] to config.toml)\n");
    for (const status of statuses) {
      io.out(`${status.name}  ${status.scope}  ${status.transport}  ${status.state}  ${status.tools.length} tools  (${displayPath(status.file, places)})\n`);
      if (status.error) io.out(`  error: ${status.error}\n`);
      for (const tool of status.tools) io.out(`  ${tool}\n`);
      for (const tool of status.skipped) io.out(`  ${tool} (skipped: providers accept only [A-Za-z0-9_-], at most 64 characters)\n`);
    }
    for (const w of mcpErrors) io.out(`config error: ${displayPath(w.file, places)}: ${w.field}: ${w.message}\n`);
    return 0;
  }
  if (options.action === "test") {
    const name = options.server;
    if (name === undefined) throw new AgentError("usage", "mcp test needs a SERVER", { fix: "e.g. agent mcp test github (see agent mcp list)" });
    const spec = loaded.mcpServers.find((candidate) => candidate.name === name);
    if (spec === undefined) {
      const known = loaded.mcpServers.map((candidate) => candidate.name);
      throw new AgentError("config", `no MCP server "${name}" is configured`, {
        fix: known.length > 0 ? `configured: ${known.join(", ")}` : "add [mcp_servers.NAME] to config.toml",
      });
    }
    if (spec.scope === "project" && !requireTrust(runtime, io, loaded, { once: options.trust })) return 1;
    const manager = createMcpManager(runtime, { servers: [{ ...spec, disabled: false }], cwd: options.cwd, onNotice: () => undefined });
    await manager.start();
    const [status] = manager.statuses();
    const definitions = await manager.toolDefinitions();
    await manager.close();
    if (status === undefined || status.state !== "ready") {
      io.err(`agent: MCP server "${name}" did not start: ${status?.error ?? "unknown error"}\n`);
      return 1;
    }
    if (options.json) {
      io.out(
        `${JSON.stringify({ server: name, state: "ok", tools: definitions.map((tool) => ({ name: tool.name, description: tool.description })), skipped: status.skipped })}\n`,
      );
      return 0;
    }
    io.out(`${name}: started, ${definitions.length} tools, stopped\n`);
    for (const tool of definitions) io.out(`  ${tool.name}${tool.description ? `  ${tool.description.split("\n")[0]?.slice(0, 100)}` : ""}\n`);
    return 0;
  }
  throw new AgentError("usage", `unknown mcp command "${options.action}"`, { fix: "use list or test SERVER" });
}
