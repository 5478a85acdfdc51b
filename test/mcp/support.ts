/**
 * MCP test worlds: the reference servers installed as dev dependencies (run with `node <dist>`),
 * our own fixture servers, and a /proc scan for every process started with a world's marker
 * variable, so a test can say that nothing it started is left running.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, type World } from "../support/cli.ts";
import { procInfo } from "../support/procs.ts";

function dist(pkg: string): string {
  const path = join(REPO, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm ci`);
  return path;
}

export const EVERYTHING = (): string => dist("server-everything");
export const FILESYSTEM = (): string => dist("server-filesystem");
export const FIXTURES = join(import.meta.dir, "..", "fixtures", "mcp");

/** The variable every server of a world is started with (through its `env`), to find them in /proc. */
export const MARKER = "AGENT_MCP_TEST_MARKER";

/** A `[mcp_servers.NAME]` TOML table for a stdio server run by node. */
export function stdioServer(world: World, name: string, argv: readonly string[], extra: { env?: Record<string, string>; more?: string } = {}): string {
  const env = { [MARKER]: world.root, ...(extra.env ?? {}) };
  const envText = Object.entries(env)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
    .join(", ");
  return [`[mcp_servers.${name}]`, `command = "node"`, `args = ${JSON.stringify(argv)}`, `env = { ${envText} }`, extra.more ?? ""].join("\n");
}

/** Live (non-zombie) processes whose environment carries this world's marker. */
export function markedProcesses(world: World): number[] {
  const needle = `${MARKER}=${world.root}`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "utf8");
    } catch {
      continue;
    }
    if (!environ.split("\0").includes(needle)) continue;
    const info = procInfo(Number(entry));
    if (info !== null && info.state !== "Z") found.push(Number(entry));
  }
  return found;
}

export interface RequestBody {
  readonly tools?: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  readonly messages: { role: string; content?: unknown; tool_call_id?: string; name?: string }[];
}

/** The tool message answering `callId` in a recorded request body. */
export function toolMessage(body: RequestBody, callId: string): string {
  const found = body.messages.find((message) => message.role === "tool" && message.tool_call_id === callId);
  if (found === undefined) throw new Error(`no tool message for ${callId} in ${JSON.stringify(body.messages).slice(0, 2000)}`);
  return typeof found.content === "string" ? found.content : JSON.stringify(found.content);
}
