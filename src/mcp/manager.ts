/**
 * Every configured MCP server of one command run. `start()` launches them all at once in the
 * background (each bounded by its `startup_timeout_ms`, default 10 s, so start-up costs at most the
 * slowest bound, not their sum); `toolDefinitions()` waits for them only when a provider request
 * needs the tool list. Tools are named `mcp__<server>__<tool>`; a tool whose full name providers
 * would reject (not `[A-Za-z0-9_-]{1,64}`) is left out and listed as skipped. A server that fails
 * or crashes costs only its own tools.
 *
 * The SDK (with its schema libraries) is loaded by `start()` through a dynamic import of
 * connection.ts, so a command with no server configured never loads it.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "../providers/types.ts";
import type { Runtime } from "../runtime/types.ts";
import type { ToolResult } from "../tools/types.ts";
import { joinCapped, OUTPUT_MAX_BYTES } from "../tools/output.ts";
import { isMcpToolName, MCP_PREFIX, mcpToolName, type McpToolName } from "../tools/names.ts";
import type { McpServerSpec } from "../config/mcp-servers.ts";
import type { ConnectionOptions, McpConnection, ServerState } from "./connection.ts";

const PROVIDER_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface McpManagerOptions {
  readonly runtime: Runtime;
  readonly servers: readonly McpServerSpec[];
  readonly cwd: string;
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly refEnv: Readonly<Record<string, string>>;
  /** How user-scope stdio servers start (src/mcp/start.ts): a neutral cwd and a PATH without the project. */
  readonly user?: ConnectionOptions["user"];
  readonly version: string;
  readonly onNotice: (text: string) => void;
}

export interface ServerStatus {
  readonly name: string;
  readonly scope: string;
  readonly transport: "stdio" | "http";
  readonly file: string;
  readonly state: ServerState;
  readonly error: string | null;
  readonly tools: readonly string[];
  /** Tools left out because their full name does not fit providers' rules. */
  readonly skipped: readonly string[];
  readonly stderr: string;
}

interface Entry {
  readonly connection: McpConnection;
  readonly tool: McpTool;
}

/** What a session needs of the MCP servers; McpManager implements it. */
export interface McpTools {
  /** The current tool list; waits for server start-up to settle (bounded per server). */
  toolDefinitions(): Promise<readonly ToolDefinition[]>;
  /** `name` when a running server offers it now, else undefined. */
  toolId(name: string): McpToolName | undefined;
  call(name: McpToolName, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

export class McpManager implements McpTools {
  /** Empty until `start()` has loaded connection.ts (and the SDK). */
  private connections: McpConnection[] = [];
  private started: Promise<void> | null = null;
  /** Resolves once the connections exist (the import done), before their start-up. */
  private created: Promise<void> | null = null;
  private readonly options: McpManagerOptions;

  constructor(options: McpManagerOptions) {
    this.options = options;
  }

  get size(): number {
    return this.options.servers.length;
  }

  /** Starts every server concurrently; idempotent. Never rejects. */
  start(): Promise<void> {
    this.started ??= this.startAll();
    return this.started;
  }

  private async startAll(): Promise<void> {
    this.created = this.createConnections();
    await this.created;
    await Promise.all(this.connections.map((connection) => connection.start()));
  }

  private async createConnections(): Promise<void> {
    const { options } = this;
    if (options.servers.length === 0) return;
    try {
      const { McpConnection: Connection } = await import("./connection.ts");
      this.connections = options.servers.map(
        (spec) =>
          new Connection({
            runtime: options.runtime,
            spec,
            cwd: options.cwd,
            baseEnv: options.baseEnv,
            refEnv: options.refEnv,
            ...(options.user ? { user: options.user } : {}),
            version: options.version,
            onNotice: options.onNotice,
          }),
      );
    } catch (error) {
      options.onNotice(`agent: MCP client could not load: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The tools of every ready server, for a provider request (waits for start-up to settle). */
  async toolDefinitions(): Promise<ToolDefinition[]> {
    await this.start();
    await Promise.all(this.connections.map((connection) => connection.settled()));
    return [...this.entries()].map(([name, entry]) => ({
      name,
      description: entry.tool.description ?? entry.tool.title ?? "",
      parameters: { ...entry.tool.inputSchema },
    }));
  }

  /** `name` when it is a tool of a ready server right now. */
  toolId(name: string): McpToolName | undefined {
    return isMcpToolName(name) && this.entries().has(name) ? name : undefined;
  }

  /** tools/call for `mcp__<server>__<tool>`; never throws. */
  async call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const entry = this.entries().get(name);
    if (entry === undefined) return { success: false, content: `${name} is not available (its MCP server is not running or does not offer it)` };
    const outcome = await entry.connection.call(entry.tool.name, input, signal);
    const metadata = { mcp_server: entry.connection.spec.name, mcp_tool: entry.tool.name };
    if (!outcome.ok) return { success: false, content: outcome.error, metadata };
    const content = resultText(outcome.result.content, outcome.result.structuredContent);
    return { success: !outcome.result.isError, content, metadata };
  }

  statuses(): ServerStatus[] {
    return this.connections.map((connection) => {
      const { spec } = connection;
      const tools: string[] = [];
      const skipped: string[] = [];
      for (const tool of connection.tools)
        (PROVIDER_TOOL_NAME.test(mcpToolName(spec.name, tool.name)) ? tools : skipped).push(mcpToolName(spec.name, tool.name));
      return {
        name: spec.name,
        scope: spec.scope,
        transport: spec.transport,
        file: spec.file,
        state: connection.state,
        error: connection.error,
        tools,
        skipped,
        stderr: connection.stderr,
      };
    });
  }

  /** Stops every server (and its process group). */
  async close(): Promise<void> {
    // A close during the import waits for the connections to exist; each close then ends its start-up.
    await this.created;
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private entries(): Map<string, Entry> {
    const map = new Map<string, Entry>();
    for (const connection of this.connections) {
      if (connection.state !== "ready") continue;
      for (const tool of connection.tools) {
        const name = mcpToolName(connection.spec.name, tool.name);
        if (PROVIDER_TOOL_NAME.test(name) && name.startsWith(MCP_PREFIX) && !map.has(name)) map.set(name, { connection, tool });
      }
    }
    return map;
  }
}

/** A CallToolResult's content as model-readable text, capped like a built-in tool's output. */
export function resultText(content: readonly unknown[], structured: unknown): string {
  const parts: string[] = [];
  for (const item of content) parts.push(contentText(item));
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  const text = parts.join("\n");
  const lines = text.split("\n");
  const capped = joinCapped(lines, OUTPUT_MAX_BYTES);
  return capped.shown < lines.length ? `${capped.text}\n… [output truncated: ${lines.length - capped.shown} more lines]` : capped.text;
}

function field(item: unknown, key: string): unknown {
  return typeof item === "object" && item !== null ? Reflect.get(item, key) : undefined;
}

function contentText(item: unknown): string {
  const type = field(item, "type");
  const text = field(item, "text");
  if (type === "text" && typeof text === "string") return text;
  const mime = field(item, "mimeType");
  const data = field(item, "data");
  const size = typeof data === "string" ? ` ${Math.floor((data.length * 3) / 4)} bytes` : "";
  if (type === "image" || type === "audio") return `[${type}${typeof mime === "string" ? ` ${mime}` : ""}${size}]`;
  if (type === "resource") {
    const resource = field(item, "resource");
    const inner = field(resource, "text");
    const uri = field(resource, "uri");
    return typeof inner === "string" ? inner : `[resource ${typeof uri === "string" ? uri : "?"}]`;
  }
  if (type === "resource_link") {
    const uri = field(item, "uri");
    return `[resource link ${typeof uri === "string" ? uri : "?"}]`;
  }
  return JSON.stringify(item);
}
