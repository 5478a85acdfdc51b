/**
 * `agent plugin install PATH|TARBALL|URL|NAME@MARKETPLACE`, `list [--json]`, `enable NAME`,
 * `disable NAME`, `remove NAME`, `marketplace add DIR` and `marketplace list`: Claude Code plugins
 * installed for the user (src/plugins/registry.ts). Installing is offline unless the argument is an
 * http(s) URL of an archive. Exit 0 on success, 2 on a usage error.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { escapeControls, escapeJsonText } from "../../util/escape.ts";
import { resolvePath } from "../../util/path-utils.ts";
import { loadConfig } from "../../config/load.ts";
import { formatWarning } from "../../config/warnings.ts";
import type { LoadWarning } from "../../hooks/types.ts";
import { readPluginRegistry } from "../../config/plugins.ts";
import { frontMatter, pluginCatalog, pluginSkillFiles, type PluginCatalog } from "../../plugins/components.ts";
import { frontMatterProblems } from "../../agent/agent-definition.ts";
import { unknownSkills } from "../../agent/agent-skills.ts";
import { commandHelpLines } from "../../plugins/commands.ts";
import {
  addMarketplace,
  disablePlugin,
  enablePlugin,
  installPlugin,
  readMarketplace,
  removePlugin,
  MAX_ARCHIVE_BYTES,
  type InstallSource,
} from "../../plugins/registry.ts";

export interface PluginCommandOptions {
  readonly action: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly json: boolean;
  /** For tests; the default is the global fetch. Used only for an http(s) URL given to install. */
  readonly fetch?: typeof fetch;
}

const ARCHIVE = /\.(tar\.gz|tgz)$/i;

async function fetchArchive(url: string, doFetch: typeof fetch): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await doFetch(url, { redirect: "follow" });
  } catch (error) {
    throw new AgentError("config", `plugin install: ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) throw new AgentError("config", `plugin install: ${url}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_ARCHIVE_BYTES) throw new AgentError("config", `plugin install: ${url}: larger than ${MAX_ARCHIVE_BYTES / (1024 * 1024)} MiB`);
  return bytes;
}

/** What `install ARG` installs from: a URL (fetched), a marketplace plugin, an archive or a folder. */
async function installSource(runtime: Runtime, home: string, arg: string, options: PluginCommandOptions): Promise<InstallSource> {
  if (/^https?:\/\//i.test(arg)) {
    if (!ARCHIVE.test(new URL(arg).pathname)) throw new AgentError("usage", `plugin install: ${arg} is not a .tar.gz/.tgz URL`);
    return { kind: "bytes", path: arg, bytes: await fetchArchive(arg, options.fetch ?? globalThis.fetch.bind(globalThis)) };
  }
  const at = /^([A-Za-z0-9][A-Za-z0-9-]*)@([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(arg);
  const path = resolvePath(options.cwd, arg);
  if (at?.[1] && at[2] && runtime.fs.stat(path) === undefined) {
    const dir = readPluginRegistry(runtime.fs, home).marketplaces[at[2]];
    if (dir === undefined)
      throw new AgentError("usage", `plugin install: no marketplace named ${at[2]}`, { fix: "agent plugin marketplace add DIR records a marketplace folder" });
    const found = readMarketplace(runtime, dir).plugins.get(at[1]);
    if (found === undefined) throw new AgentError("usage", `plugin install: marketplace ${at[2]} has no plugin ${at[1]}`);
    return { kind: "dir", path: found, marketplace: at[2] };
  }
  const stat = runtime.fs.stat(path);
  if (stat?.kind === "dir") return { kind: "dir", path };
  if (stat?.kind === "file" && ARCHIVE.test(path)) return { kind: "archive", path };
  throw new AgentError("usage", `plugin install: ${arg} is not a plugin folder, a .tar.gz/.tgz archive or NAME@MARKETPLACE`);
}

/** Front-matter problems of the plugins' agents and commands (src/agent/agent-definition.ts), as load warnings. */
function componentWarnings(runtime: Runtime, catalog: PluginCatalog): LoadWarning[] {
  const files = [
    ...catalog.agents.map((agent) => ({ kind: "agent" as const, path: agent.path, plugin: agent.plugin })),
    ...catalog.commands.map((command) => ({ kind: "command" as const, path: command.path, plugin: command.plugin })),
  ];
  const skills = pluginSkillFiles(catalog);
  return files.flatMap(({ kind, path, plugin }) => {
    let text: string | undefined;
    try {
      text = runtime.fs.readText(path);
    } catch {
      text = undefined;
    }
    const fields = frontMatter(text ?? "").fields;
    const problems = [
      ...frontMatterProblems(kind, fields),
      ...(kind === "agent" ? unknownSkills(fields, skills, plugin).map((message) => `skills: ${message}`) : []),
    ];
    return problems.map((problem) => {
      const split = problem.indexOf(": ");
      return { severity: "warning" as const, file: path, field: problem.slice(0, split), message: problem.slice(split + 2) };
    });
  });
}

function listPlugins(runtime: Runtime, io: CliIO, options: PluginCommandOptions): number {
  const loaded = loadConfig(runtime, { cwd: options.cwd });
  const registry = readPluginRegistry(runtime.fs, loaded.home);
  const catalog = pluginCatalog(runtime.fs, loaded.plugins);
  const rows = loaded.plugins.map((plugin) => ({
    name: plugin.name,
    origin: plugin.origin,
    enabled: true,
    version: plugin.version ?? null,
    root: plugin.root,
    hooks: loaded.hooks.filter((spec) => spec.form === "lifecycle" && spec.plugin === plugin.name).length,
    commands: catalog.commands.filter((c) => c.plugin === plugin.name).map((c) => c.name),
    agents: catalog.agents.filter((a) => a.plugin === plugin.name).map((a) => a.name),
    skills: catalog.skills.filter((s) => s.plugin === plugin.name).map((s) => s.name),
    mcp_servers: loaded.mcpServers.filter((s) => s.name.startsWith(`plugin_${plugin.name}_`)).map((s) => s.name),
  }));
  const loadedNames = new Set(rows.map((row) => row.name));
  const idle = Object.entries(registry.plugins).filter(([name]) => !loadedNames.has(name));
  const warnings = [
    ...loaded.warnings.filter((w) => w.file.includes("/plugins/") || w.file.includes(".claude-plugin") || w.message.includes("plugin")),
    ...componentWarnings(runtime, catalog),
  ];
  if (options.json) {
    const notLoaded = idle.map(([name, entry]) => ({ name, origin: "installed", enabled: entry.enabled, loaded: false }));
    io.out(`${escapeJsonText(JSON.stringify({ plugins: [...rows, ...notLoaded], marketplaces: registry.marketplaces, warnings }, null, 2))}\n`);
    return 0;
  }
  if (rows.length === 0 && idle.length === 0) io.out("no plugins (agent plugin install DIR|TARBALL, or --plugin-dir DIR for one run)\n");
  for (const row of rows) {
    const parts = [`${row.hooks} hook${row.hooks === 1 ? "" : "s"}`];
    if (row.commands.length > 0) parts.push(`commands ${row.commands.map((c) => `/${c}`).join(" ")}`);
    const help = commandHelpLines({ ...catalog, commands: catalog.commands.filter((c) => c.plugin === row.name), skills: [] });
    if (row.agents.length > 0) parts.push(`agents ${row.agents.join(" ")}`);
    if (row.skills.length > 0) parts.push(`skills ${row.skills.join(" ")}`);
    if (row.mcp_servers.length > 0) parts.push(`mcp ${row.mcp_servers.join(" ")}`);
    // Each line escaped on its own: the newlines between them are ours.
    const lines = [
      `${row.name}${row.version ? ` ${row.version}` : ""}  (${row.origin}) ${row.root}`,
      `    ${parts.join("; ")}`,
      ...help.map((text) => `  ${text}`),
    ];
    io.out(`${lines.map(escapeControls).join("\n")}\n`);
  }
  for (const [name, entry] of idle) io.out(`${escapeControls(`${name}  (installed, ${entry.enabled ? "not loaded: see the warning below" : "disabled"})`)}\n`);
  for (const warning of warnings) io.out(`${warning.severity}: ${formatWarning(warning, { projectRoot: loaded.projectRoot })}\n`);
  return 0;
}

function requireName(action: string, name: string | undefined): string {
  if (name === undefined || name === "")
    throw new AgentError("usage", `plugin ${action} needs a plugin name`, { fix: `agent plugin ${action} NAME (agent plugin list shows them)` });
  return name;
}

export async function runPluginCommand(runtime: Runtime, io: CliIO, options: PluginCommandOptions): Promise<number> {
  const home = loadConfig(runtime, { cwd: options.cwd, noHooks: true }).home;
  const [first, second] = options.args;
  switch (options.action) {
    case "install": {
      if (first === undefined)
        throw new AgentError("usage", "plugin install needs a folder, a .tar.gz/.tgz archive, an http(s) URL of one, or NAME@MARKETPLACE");
      const installed = installPlugin(runtime, home, await installSource(runtime, home, first, options));
      for (const path of installed.skipped) io.err(escapeControls(`agent: plugin install: skipped ${path} (not a regular file or folder)\n`));
      io.out(
        escapeControls(
          `${installed.replaced ? "replaced" : "installed"} plugin ${installed.name} in ${installed.root} (enabled: its hooks and MCP servers run in every session; agent plugin disable ${installed.name} stops them)\n`,
        ),
      );
      return 0;
    }
    case "list":
      return listPlugins(runtime, io, options);
    case "enable":
      enablePlugin(runtime, home, requireName("enable", first));
      io.out(`enabled plugin ${first} (its files as they are now are trusted)\n`);
      return 0;
    case "disable":
      disablePlugin(runtime, home, requireName("disable", first));
      io.out(`disabled plugin ${first}\n`);
      return 0;
    case "remove":
      removePlugin(runtime, home, requireName("remove", first));
      io.out(`removed plugin ${first}\n`);
      return 0;
    case "marketplace": {
      if (first === "list") {
        for (const [name, dir] of Object.entries(readPluginRegistry(runtime.fs, home).marketplaces)) io.out(escapeControls(`${name}  ${dir}\n`));
        return 0;
      }
      if (first !== "add" || second === undefined) throw new AgentError("usage", "plugin marketplace needs add DIR or list");
      const added = addMarketplace(runtime, home, resolvePath(options.cwd, second));
      io.out(escapeControls(`added marketplace ${added.name}: ${added.plugins.join(", ") || "no plugins"} (agent plugin install NAME@${added.name})\n`));
      return 0;
    }
    default:
      throw new AgentError("usage", `unknown plugin command "${options.action}"`, { fix: "use install, list, enable, disable, remove or marketplace" });
  }
}
