/**
 * The prompt loop between turns: reads a line, runs slash commands (/help, /hooks, /hooks reload,
 * /trust, /model, /permissions, /mcp, /resume, /sessions, /compact, /clear, /cost, /exit), and
 * returns the next prompt or the end of the session. Also the status row above the prompt.
 */
import { commandHelpLines, expandSlashCommand, type PreparedCommand } from "../plugins/commands.ts";
import { pluginCatalog } from "../plugins/components.ts";
import type { AgentSession } from "../agent/agent-session.ts";
import type { Render, Repl, ResumeSource, SessionInfo, UsageView } from "./repl.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { trustDecision } from "../trust/decision.ts";
import { instructionReviewLines } from "../agent/instructions.ts";
import { pinTrust } from "../trust/trust.ts";
import { formatWarning } from "../config/warnings.ts";
import { escapeControls } from "../util/escape.ts";
import { commandText, matcherText, policyText } from "../hooks/describe.ts";
import { listSessions } from "../session/store.ts";
import { SLASH_COMMANDS } from "./complete.ts";

export const KEYS_TEXT = [
  "keys:",
  "  Enter send · \\ then Enter, Shift-Enter or Alt-Enter: new line · a paste stays one prompt",
  "  ←/→ Ctrl-B/F move · Alt-B/F or Ctrl-←/→ word · Ctrl-A/E line start/end · ↑/↓ history",
  "  Ctrl-K kill to end (on an empty prompt: command palette) · Ctrl-U kill to start · Ctrl-W word",
  "  Ctrl-O on an empty prompt shows the last collapsed tool output whole (/expand)",
  "  Tab completes /commands and @paths · Ctrl-L clears the screen · Ctrl-D on an empty prompt exits",
  "  Ctrl-C clears the line, cancels the turn, denies a question; twice at an empty prompt exits",
  "  at a question: ↑/↓ and Enter, or the number or letter of an answer; Esc or Ctrl-C denies",
].join("\n");

export const HELP_TEXT = ["commands:", ...SLASH_COMMANDS.map((c) => `  ${c.name.padEnd(16)} ${c.help}`), KEYS_TEXT].join("\n");

type Next =
  | { type: "prompt"; text: string; command?: PreparedCommand }
  | { type: "end"; ending: { kind: "exit" } | { kind: "clear" } | { kind: "resume"; source: ResumeSource } };

/** Reads lines until a prompt or the end; slash commands run here, between turns. */
export async function readCommand(repl: Repl, session: AgentSession, render: Render, status: () => string): Promise<Next> {
  const { io, options } = repl;
  for (;;) {
    if (repl.terminated) return { type: "end", ending: { kind: "exit" } };
    const line = await repl.input.read("> ", {
      status: status(),
      idleMs: options.idleMs,
      onIdle: async () => {
        const shown = await render(session.notify("idle_prompt", "agent", "agent is waiting for your input"));
        if (shown) io.err(`${escapeControls(`${shown.title}: ${shown.message}`)}\n`);
      },
    });
    if (line === null || repl.terminated) return { type: "end", ending: { kind: "exit" } };
    const text = line.trim();
    if (text === "") continue;
    if (!text.startsWith("/") || text.includes("\n")) return { type: "prompt", text: line };
    const [command = "", ...rest] = text.split(/\s+/);
    const next = await runCommand(repl, session, render, command, rest.join(" "));
    if (next !== null) return next;
  }
}

async function runCommand(repl: Repl, session: AgentSession, render: Render, command: string, argument: string): Promise<Next | null> {
  const { io, options } = repl;
  switch (command) {
    case "/exit":
    case "/quit":
      return { type: "end", ending: { kind: "exit" } };
    case "/clear":
      return { type: "end", ending: { kind: "clear" } };
    case "/resume":
      return resumeCommand(repl, argument);
    case "/help": {
      const plugin = commandHelpLines(pluginCatalog(repl.runtime.fs, repl.loaded.plugins));
      io.err(`${HELP_TEXT}\n${plugin.length > 0 ? `plugin commands:\n${plugin.map(escapeControls).join("\n")}\n` : ""}`);
      return null;
    }
    case "/compact":
      await render(session.compact(argument));
      return null;
    case "/hooks":
      await hooksCommand(repl, session, render, argument);
      return null;
    case "/trust":
      await trustCommand(repl, session, render);
      return null;
    case "/model":
      io.err(
        argument === ""
          ? `model: ${escapeControls(options.info.model)} (provider ${options.info.provider})\n`
          : "agent: the model is chosen at start: agent --model NAME (and --provider); /model shows it\n",
      );
      return null;
    case "/permissions":
      io.err(`${permissionsText(repl.loaded, options.info.permissionMode)}\n`);
      return null;
    case "/mcp":
      io.err(`${mcpText(options.info)}\n`);
      return null;
    case "/sessions":
      io.err(`${sessionsText(repl)}\n`);
      return null;
    case "/expand": {
      const full = repl.renderer?.lastCollapsed?.() ?? null;
      io.err(full === null ? "agent: no collapsed tool output in this session yet\n" : `${full}\n`);
      return null;
    }
    case "/cost":
      io.err(`${costText(options.info.usage())}\n`);
      return null;
    default:
      return pluginCommand(repl, command, argument);
  }
}

/** A loaded plugin's command (`/name` or `/plugin:name`) becomes the prompt its markdown expands to. */
function pluginCommand(repl: Repl, command: string, argument: string): Next | null {
  const fs = repl.runtime.fs;
  const expanded = expandSlashCommand(fs, pluginCatalog(fs, repl.loaded.plugins), argument === "" ? command : `${command} ${argument}`);
  // The session runs the command's `!` lines and reads its `@` files through the tool-call policy (asking here).
  if (expanded.kind === "expanded") return { type: "prompt", text: expanded.prompt, command: expanded.prepared };
  repl.io.err(expanded.kind === "error" ? `agent: ${escapeControls(expanded.message)}\n` : `agent: unknown command ${escapeControls(command)} (see /help)\n`);
  return null;
}

/** `model · mode · hooks · MCP · tokens`: the dim row above the prompt. */
export function statusLine(repl: Repl): string {
  const { info } = repl.options;
  const hooks = repl.options.hooksOff ? "hooks off" : `${repl.loaded.hooks.length} hooks`;
  const servers = info.mcp();
  const up = servers.filter((server) => server.state === "running").length;
  const usage = info.usage();
  const parts = [`${info.provider}/${escapeControls(info.model)}`, `${info.permissionMode} mode`, hooks];
  if (servers.length > 0) parts.push(`mcp ${up}/${servers.length}`);
  if (usage !== null) parts.push(`${usage.inputTokens + usage.outputTokens} tokens`);
  return parts.join(" · ");
}

function resumeCommand(repl: Repl, argument: string): Next | null {
  if (argument === "") {
    repl.io.err(`${sessionsText(repl)}\n/resume ID continues one of them\n`);
    return null;
  }
  const found = repl.options.info.loadSession(argument);
  if (typeof found === "string") {
    repl.io.err(`agent: ${escapeControls(found)}\n`);
    return null;
  }
  return { type: "end", ending: { kind: "resume", source: found } };
}

function sessionsText(repl: Repl): string {
  const root = repl.loaded.projectRoot.replace(/\/+$/, "");
  const mine = listSessions(repl.runtime, repl.loaded.home).filter((s) => (s.projectDir ?? "").replace(/\/+$/, "") === root);
  if (mine.length === 0) return "no sessions of this project yet";
  const rows = mine.slice(0, 10).map((s) => {
    const prompt = escapeControls((s.prompt ?? "").replace(/\s+/g, " ")).slice(0, 50);
    return `  ${s.id}  ${s.startedAt.slice(0, 16).replace("T", " ")}  ${prompt}`;
  });
  return [`sessions of this project (newest first${mine.length > 10 ? `, 10 of ${mine.length}` : ""}):`, ...rows].join("\n");
}

function costText(usage: UsageView | null): string {
  if (usage === null) return "no token usage known: the provider reported none in this session";
  return `tokens this session: ${usage.inputTokens} in (last request's context counted per request), ${usage.outputTokens} out, over ${usage.requests} requests`;
}

function mcpText(info: SessionInfo): string {
  const servers = info.mcp();
  if (servers.length === 0) return "no MCP servers configured";
  return servers.map((s) => `  ${escapeControls(s.name)}: ${s.state}, ${s.tools} tools${s.error !== null ? ` — ${escapeControls(s.error)}` : ""}`).join("\n");
}

function permissionsText(loaded: LoadedConfig, mode: string): string {
  const { allow, ask, deny } = loaded.settings.permissions;
  const list = (name: string, rules: readonly string[]): string =>
    `  ${name}: ${rules.length === 0 ? "(none)" : rules.map((rule) => escapeControls(rule)).join(", ")}`;
  return [
    `permission mode: ${mode}`,
    list("allow", allow),
    list("ask", ask),
    list("deny", deny),
    "rules you allow always in a question hold for this session",
  ].join("\n");
}

async function hooksCommand(repl: Repl, session: AgentSession, render: Render, argument: string): Promise<void> {
  const { io, options } = repl;
  if (argument === "reload") {
    const reloaded = await reloadConfig(repl);
    if (reloaded === null) return;
    repl.loaded = reloaded;
    // Hooks off: the reload loaded only the managed layer's hooks, which stay on.
    await render(session.reloadHooks(reloaded.hooks));
    io.err(`agent: hooks reloaded (${reloaded.hooks.length} loaded, ${reloaded.warnings.length} warnings)\n`);
  } else if (argument === "") {
    io.err(`${hooksListing(repl.loaded, options.hooksOff)}\n`);
  } else {
    io.err(`agent: unknown /hooks argument "${escapeControls(argument)}" (use /hooks or /hooks reload)\n`);
  }
}

/** `/hooks`: loaded hooks in run order, then the load warnings (DIR-13). */
function hooksListing(loaded: LoadedConfig, hooksOff: boolean): string {
  if (hooksOff && loaded.hooks.length === 0) return "hooks disabled";
  const lines = hooksOff
    ? ["hooks disabled; the managed policy's hooks still run:"]
    : loaded.hooks.length === 0
      ? ["no hooks loaded"]
      : [`${loaded.hooks.length} hooks loaded:`];
  for (const spec of loaded.hooks) {
    lines.push(
      escapeControls(
        `  ${spec.event} ${spec.label} (${spec.scope} ${spec.form}, matcher ${matcherText(spec)}, ${policyText(spec)}${spec.disabled ? ", disabled" : ""}): ${commandText(spec)}`,
      ),
    );
  }
  if (loaded.warnings.length > 0) {
    lines.push(`${loaded.warnings.length} load warnings:`);
    for (const warning of loaded.warnings) lines.push(`  ${formatWarning(warning, { projectRoot: loaded.projectRoot })}`);
  }
  return lines.join("\n");
}

/**
 * `/hooks reload`: the new config. A project changed since it was trusted shows the D17 review
 * and asks in place (DIR-14); no, or a change that cannot be pinned, keeps the previous hooks.
 */
async function reloadConfig(repl: Repl): Promise<LoadedConfig | null> {
  const { runtime, io, options } = repl;
  const loaded = loadConfig(runtime, { cwd: repl.loaded.cwd, pluginDirs: repl.loaded.pluginDirs, ...(options.hooksOff ? { noHooks: true } : {}) });
  if (options.hooksOff) return loaded;
  if (await reviewTrust(repl, loaded)) return loaded;
  io.err("agent: hooks not reloaded; the previous hooks stay in force\n");
  return null;
}

/** True when `loaded` is trusted now (already, or the person said yes to the review shown). */
async function reviewTrust(repl: Repl, loaded: LoadedConfig): Promise<boolean> {
  const { runtime, io, input } = repl;
  const instructions = (): string[] =>
    instructionReviewLines({
      fs: runtime.fs,
      agentHome: loaded.home,
      projectRoot: loaded.projectRoot,
      cwd: loaded.cwd,
      ...(loaded.settings.agent.contextFiles ? { names: loaded.settings.agent.contextFiles } : {}),
    });
  const decision = trustDecision(runtime, loaded, { instructions });
  if (decision.ok) return true;
  io.err(`${decision.message}\n`);
  if (!decision.askable) return false;
  const answer = await input.choose("trust this project and run these hooks?", [
    { key: "y", label: "yes, trust them", value: "yes" },
    { key: "n", label: "no", value: "no" },
  ]);
  if (answer !== "yes") return false;
  try {
    pinTrust(runtime, loaded.home, loaded.projectRoot, decision.material);
  } catch (error) {
    io.err(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  }
  io.err("agent: project trusted\n");
  return true;
}

/** `/trust`: the trust review of the project as it is on disk now; yes pins it and reloads the hooks. */
async function trustCommand(repl: Repl, session: AgentSession, render: Render): Promise<void> {
  const { runtime, io, options } = repl;
  const loaded = loadConfig(runtime, { cwd: repl.loaded.cwd, pluginDirs: repl.loaded.pluginDirs, ...(options.hooksOff ? { noHooks: true } : {}) });
  if (trustDecision(runtime, loaded).ok) {
    io.err(loaded.projectScope ? "agent: this project is trusted as it is on disk\n" : "agent: this project has no settings or hooks that need trust\n");
    return;
  }
  if (!(await reviewTrust(repl, loaded))) {
    io.err("agent: trust unchanged\n");
    return;
  }
  repl.loaded = loaded;
  await render(session.reloadHooks(options.hooksOff ? [] : loaded.hooks));
  io.err(`agent: hooks reloaded (${loaded.hooks.length} loaded)\n`);
}
