/**
 * One MCP server: the SDK `Client` over our stdio transport (or the SDK's streamable HTTP
 * transport), started within `startup_timeout_ms` (initialize + every page of tools/list), its
 * tool list kept current on `notifications/tools/list_changed`, calls with cancellation (an aborted
 * signal makes the SDK send `notifications/cancelled`) and a per-call bound. Never throws: every
 * failure is a state or a result value with one line that says what happened.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Runtime } from "../runtime/types.ts";
import type { McpServerSpec } from "../config/mcp-servers.ts";
import { expandEnvRefs } from "../util/env-refs.ts";
import { RuntimeStdioTransport } from "./stdio-transport.ts";
import { resolvePath } from "../util/path-utils.ts";

export type ServerState = "starting" | "ready" | "failed" | "exited" | "disabled" | "closed";

/** At most this many tools/list pages are read (a server that pages forever cannot stall start-up). */
const MAX_LIST_PAGES = 100;

export interface ConnectionOptions {
  readonly runtime: Runtime;
  readonly spec: McpServerSpec;
  /** Relative `cwd` of a stdio server resolves against this. */
  readonly cwd: string;
  /** The environment a stdio server starts from (already stripped of secrets, D18); its `env` is added. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Where a user server's `${NAME}` references are looked up (the agent's own environment); a project server's read `baseEnv`. */
  readonly refEnv: Readonly<Record<string, string>>;
  /** A user-scope stdio server without its own `cwd` starts here, from this environment (src/mcp/start.ts). */
  readonly user?: { readonly cwd: string; readonly baseEnv: Readonly<Record<string, string>> };
  readonly version: string;
  /** One clear line for the user (a failure at start, a crash later). */
  readonly onNotice: (text: string) => void;
  /** The tool list changed (list_changed, or the server went away). */
  readonly onToolsChanged?: () => void;
}

export type CallOutcome =
  | { readonly ok: true; readonly result: { readonly content: readonly unknown[]; readonly isError: boolean; readonly structuredContent?: unknown } }
  | { readonly ok: false; readonly error: string };

export class McpConnection {
  readonly spec: McpServerSpec;
  state: ServerState = "starting";
  error: string | null = null;
  tools: readonly McpTool[] = [];
  private client: Client | null = null;
  private transport: Transport | null = null;
  private readonly options: ConnectionOptions;
  private expectingClose = false;
  /** How the server went away (`exited with code 3`, …), once it has. */
  private exitHow = "went away";
  /** A tools/list after list_changed that is still under way: the next tool list waits for it. */
  private refreshing: Promise<void> | null = null;

  constructor(options: ConnectionOptions) {
    this.options = options;
    this.spec = options.spec;
    if (options.spec.disabled) this.state = "disabled";
  }

  get stderr(): string {
    return this.transport instanceof RuntimeStdioTransport ? this.transport.stderr : "";
  }

  /** Starts the server and reads its tools, bounded by `startup_timeout_ms`. Resolves when ready or failed. */
  async start(): Promise<void> {
    if (this.state !== "starting") return;
    const { spec } = this;
    const transport = this.makeTransport();
    if (typeof transport === "string") return this.fail(transport);
    this.transport = transport;
    const client = new Client({ name: "agent", version: this.options.version }, { capabilities: {} });
    this.client = client;
    client.onclose = () => this.closedUnderneath();
    const timeout = spec.startupTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeout);
    });
    const work = (async (): Promise<string | null> => {
      try {
        await client.connect(transport, { timeout });
        this.tools = await this.listAll(timeout);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    const outcome = await Promise.race([work, timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") return this.fail(`did not finish start-up within ${timeout} ms (startup_timeout_ms)`);
    if (outcome !== null) return this.fail(outcome);
    if (this.state !== "starting") return;
    this.state = "ready";
    if (client.getServerCapabilities()?.tools?.listChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        const refresh = (async () => {
          try {
            const tools = await this.listAll(spec.startupTimeoutMs);
            if (this.state === "ready") this.tools = tools;
            this.options.onToolsChanged?.();
          } catch (error) {
            this.options.onNotice(
              `agent: MCP server "${spec.name}": tools/list after list_changed failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        })();
        this.refreshing = refresh;
        return refresh;
      });
    }
  }

  /** Resolves once no list_changed refresh is under way. */
  async settled(): Promise<void> {
    while (this.refreshing !== null) {
      const pending = this.refreshing;
      await pending;
      if (this.refreshing === pending) this.refreshing = null;
    }
  }

  /** tools/call; `signal` cancels it (notifications/cancelled). */
  async call(tool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    const client = this.client;
    if (client === null || this.state !== "ready")
      return { ok: false, error: `MCP server "${this.spec.name}" is not running (${this.state}${this.error ? `: ${this.error}` : ""})` };
    try {
      const result = await client.callTool({ name: tool, arguments: input }, undefined, {
        signal,
        timeout: this.spec.toolTimeoutMs,
        resetTimeoutOnProgress: true,
      });
      const content = Array.isArray(result.content) ? result.content : [];
      return {
        ok: true,
        result: {
          content,
          isError: result.isError === true,
          ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
        },
      };
    } catch (error) {
      if (signal.aborted) return { ok: false, error: `the call was cancelled` };
      // The close handler ran first when the server died mid-call: say that, not the SDK's generic text.
      if (this.hasExited())
        return { ok: false, error: `MCP server "${this.spec.name}" ${this.exitHow} during the call; its tools are gone for the rest of the session` };
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Stops the server (its whole process group). */
  async close(): Promise<void> {
    this.expectingClose = true;
    if (this.state === "starting" || this.state === "ready") this.state = "closed";
    const transport = this.transport;
    // Both: the client may not have attached the transport yet (close during start-up); closing twice is harmless.
    await this.client?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  }

  /** Read through a method: the state changes under an awaited call (the close handler). */
  private hasExited(): boolean {
    return this.state === "exited";
  }

  private async listAll(timeout: number): Promise<McpTool[]> {
    const client = this.client;
    if (client === null) return [];
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** `${NAME}` filled in: a project server reads the stripped environment only (D18), a user server the whole one. */
  private expand(field: string, value: string): { ok: true; value: string } | { ok: false; error: string } {
    const { spec, refEnv, baseEnv } = this.options;
    const expanded = expandEnvRefs(value, spec.scope === "project" ? baseEnv : refEnv);
    if (expanded.ok) return expanded;
    const stripped = spec.scope === "project" && refEnv[expanded.missing] !== undefined;
    return {
      ok: false,
      error: stripped
        ? `${field} names \${${expanded.missing}}, a credential the agent strips; only a server in your own config (~/.agent) may use it`
        : `${field} needs the environment variable ${expanded.missing}, which is not set`,
    };
  }

  private makeTransport(): Transport | string {
    const { spec } = this.options;
    if (spec.transport === "http") {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(spec.headers)) {
        const expanded = this.expand(`headers.${key}`, value);
        if (!expanded.ok) return expanded.error;
        headers[key] = expanded.value;
      }
      return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers } });
    }
    const launch = spec.scope === "user" && this.options.user ? this.options.user : { cwd: this.options.cwd, baseEnv: this.options.baseEnv };
    const env: Record<string, string> = { ...launch.baseEnv };
    for (const [key, value] of Object.entries(spec.env)) {
      const expanded = this.expand(`env.${key}`, value);
      if (!expanded.ok) return expanded.error;
      env[key] = expanded.value;
    }
    const cwd = spec.cwd === null ? launch.cwd : resolvePath(this.options.cwd, spec.cwd);
    return new RuntimeStdioTransport(this.options.runtime, { argv: [spec.command, ...spec.args], cwd, env });
  }

  private async fail(reason: string): Promise<void> {
    const tail = lastLine(this.stderr);
    this.state = "failed";
    this.error = tail ? `${reason} (stderr: ${tail})` : reason;
    this.tools = [];
    this.options.onNotice(`agent: MCP server "${this.spec.name}" failed to start: ${this.error}; continuing without it`);
    await this.close();
    this.state = "failed";
  }

  /** The transport closed without our asking: the server exited or the connection dropped. */
  private closedUnderneath(): void {
    if (this.expectingClose || this.state !== "ready") return;
    const transport = this.transport;
    const exit = transport instanceof RuntimeStdioTransport ? transport.exit : null;
    const how = exit === null ? "closed the connection" : exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const tail = lastLine(this.stderr);
    this.exitHow = how;
    this.state = "exited";
    this.error = `MCP server "${this.spec.name}" ${how}${tail ? ` (stderr: ${tail})` : ""}; its tools are gone for the rest of the session`;
    this.tools = [];
    this.options.onNotice(`agent: ${this.error}`);
    this.options.onToolsChanged?.();
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").trim().slice(0, 300);
}
