/**
 * `mcp_servers` in config.toml / settings.json (user and project scope): one table per server,
 * either a stdio server (`command`, `args`, `env`, `cwd`) or a streamable HTTP server (`url`,
 * `headers`). `${NAME}` in `env` values and header values is taken from the agent's environment at
 * start-up, so secrets stay out of config files. A later file replaces a server of the same name
 * whole (project over user). A bad entry costs only that server: one error naming the file, the
 * field and the fix (D21). Project servers run code, so load.ts puts them into the trust material.
 */
import { isRecord } from "../util/records.ts";
import type { ParsedSettingsFile } from "./settings.ts";
import type { WarningSink } from "./warnings.ts";
import { checkField, MCP_SERVER_FIELDS } from "./schema.ts";
import type { Scope } from "../hooks/types.ts";

/** Per-server start-up bound (initialize + the first tools/list), unless `startup_timeout_ms` says otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
/** Per-call bound of tools/call, unless `tool_timeout_ms` says otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** Server names end up inside `mcp__<server>__<tool>`, which providers limit to `[A-Za-z0-9_-]`; `__` would make the split ambiguous. */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

interface CommonSpec {
  readonly name: string;
  readonly scope: Scope;
  /** The settings file that defined it (errors and `agent mcp list` name it). */
  readonly file: string;
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly disabled: boolean;
}

export type McpServerSpec =
  | (CommonSpec & {
      readonly transport: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | null;
    })
  | (CommonSpec & { readonly transport: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>> });

/**
 * Reads `mcp_servers` of every file in load order. `skipProject`: project servers are not loaded
 * (hooks off means project trust is not checked, so nothing of the project's may run, D17).
 */
export function readMcpServers(files: readonly ParsedSettingsFile[], sink: WarningSink, options: { readonly skipProject: boolean }): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const { file, data } of files) {
    if (!data || data.mcp_servers === undefined) continue;
    if (options.skipProject && file.scope === "project") continue;
    const path = file.path;
    const table = data.mcp_servers;
    if (!isRecord(table)) {
      sink.error(path, "mcp_servers", `must be a table/object of servers, e.g. [mcp_servers.github] command = "github-mcp"`);
      continue;
    }
    for (const [name, entry] of Object.entries(table)) {
      const spec = readServer(path, file.scope, name, entry, sink);
      if (spec === null) continue;
      byName.delete(name);
      byName.set(name, spec);
    }
  }
  return [...byName.values()];
}

function readServer(path: string, scope: Scope, name: string, entry: unknown, sink: WarningSink): McpServerSpec | null {
  const field = `mcp_servers.${name}`;
  if (!SERVER_NAME.test(name)) {
    sink.error(
      path,
      field,
      "server names use letters, digits, `-` and single `_` (tools are named mcp__<server>__<tool>); rename it, e.g. [mcp_servers.my-server]",
    );
    return null;
  }
  if (!isRecord(entry)) {
    sink.error(path, field, "must be a table/object with `command` (stdio) or `url` (streamable HTTP)");
    return null;
  }
  let ok = true;
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!(key in MCP_SERVER_FIELDS)) {
      sink.error(path, `${field}.${key}`, `unknown key (use ${Object.keys(MCP_SERVER_FIELDS).join(", ")})`);
      ok = false;
      continue;
    }
    const message = checkField(MCP_SERVER_FIELDS[key as keyof typeof MCP_SERVER_FIELDS], value);
    if (message !== undefined) {
      sink.error(path, `${field}.${key}`, message);
      ok = false;
    } else values[key] = value;
  }
  const hasCommand = "command" in entry;
  const hasUrl = "url" in entry;
  if (hasCommand === hasUrl) {
    sink.error(
      path,
      field,
      hasCommand ? "set either `command` (stdio) or `url` (streamable HTTP), not both" : "needs `command` (a stdio server) or `url` (a streamable HTTP server)",
    );
    return null;
  }
  for (const key of hasCommand ? ["url", "headers"] : ["args", "env", "cwd"]) {
    if (key in entry) {
      sink.error(path, `${field}.${key}`, hasCommand ? `only for url servers; remove it` : `only for command (stdio) servers; remove it`);
      ok = false;
    }
  }
  if (!ok) return null;
  const text = (key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);
  const strings = (key: string): Record<string, string> => {
    const value = values[key];
    const out: Record<string, string> = {};
    if (isRecord(value)) for (const [k, item] of Object.entries(value)) if (typeof item === "string") out[k] = item;
    return out;
  };
  const num = (key: string, fallback: number): number => (typeof values[key] === "number" ? values[key] : fallback);
  const common: CommonSpec = {
    name,
    scope,
    file: path,
    startupTimeoutMs: num("startup_timeout_ms", DEFAULT_STARTUP_TIMEOUT_MS),
    toolTimeoutMs: num("tool_timeout_ms", DEFAULT_TOOL_TIMEOUT_MS),
    disabled: values.disabled === true,
  };
  const command = text("command");
  if (command !== undefined) {
    const args = Array.isArray(values.args) ? values.args.filter((arg): arg is string => typeof arg === "string") : [];
    return { ...common, transport: "stdio", command, args, env: strings("env"), cwd: text("cwd") ?? null };
  }
  return { ...common, transport: "http", url: text("url") ?? "", headers: strings("headers") };
}
