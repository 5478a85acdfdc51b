/**
 * The interactive session's line UI: reads prompts and slash commands, renders the loop's events as
 * plain lines (the `agent run` text renderer), answers permission asks, and restarts the session on
 * `/clear`. This REPL drives one AgentSession per session: start, a prompt per line, compact /
 * reload / notify between turns, end.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentSessionOptions, PermissionAnswer, PermissionAsk, SessionResult, TurnOutcome } from "../agent/types.ts";
import { AgentSession, type EndOptions } from "../agent/agent-session.ts";
import type { EventStream } from "../agent/event-queue.ts";
import { createRenderer } from "./renderer.ts";
import { createActivityRenderer, historyLines } from "./hook-rows.ts";
import type { SessionRecord } from "../session/records.ts";
import type { PromptIO } from "./prompt-io.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { trustDecision } from "../trust/decision.ts";
import { formatWarning } from "../config/warnings.ts";
import { escapeControls } from "../util/escape.ts";
import { commandText, matcherText, policyText } from "../hooks/describe.ts";
import { exitNow, watchStopSignals } from "../runtime/signals.ts";

export const HELP_TEXT = [
  "commands:",
  "  /help                   this list",
  "  /hooks                  the loaded hooks and load warnings",
  "  /hooks reload           re-read hook configuration (asks nothing; an untrusted change is refused)",
  "  /compact [instructions] summarize the conversation now",
  "  /clear                  end this session and start a fresh one",
  "  /exit                   quit (also Ctrl-D, or Ctrl-C twice at the prompt)",
  "Ctrl-C while the agent works cancels the turn.",
].join("\n");

export interface InteractiveOptions {
  /** Everything the AgentSession needs but the interactive callbacks, signal and start source. */
  readonly agent: Omit<AgentSessionOptions, "askPermission" | "startSource" | "signal" | "resume" | "onLine">;
  /** `agent --resume ID`: the first session continues this one (a `/clear` starts a fresh one). */
  readonly resume?: { readonly sessionId: string; readonly records: readonly SessionRecord[] };
  readonly loaded: LoadedConfig;
  readonly hooksOff: boolean;
  /** Delay before the idle_prompt notification (DESIGN: 60 s; AGENT_IDLE_PROMPT_MS in tests). */
  readonly idleMs: number;
}

/** What the REPL shares across sessions (a `/clear` starts a new one) and with its SIGINT handler. */
interface Repl {
  readonly runtime: Runtime;
  readonly io: CliIO;
  readonly input: PromptIO;
  readonly options: InteractiveOptions;
  loaded: LoadedConfig;
  /** The running turn's controller (null at the prompt). */
  turn: AbortController | null;
  /** A permission question is waiting. */
  asking: boolean;
  /** The whole REPL's controller: SIGTERM/SIGHUP abort it and end the session. */
  readonly session: AbortController;
  /** SIGTERM or SIGHUP arrived: end after the current session_end. */
  terminated: boolean;
}

export async function runInteractive(runtime: Runtime, io: CliIO, input: PromptIO, options: InteractiveOptions): Promise<SessionResult> {
  const repl: Repl = { runtime, io, input, options, loaded: options.loaded, turn: null, asking: false, session: new AbortController(), terminated: false };
  const offSignal = runtime.onSignal("SIGINT", () => onInterrupt(repl));
  // SIGTERM/SIGHUP end the whole session like /exit after a cancelled turn: every group is killed,
  // session_end runs, and main.ts exits 143/129. A second one exits at once.
  const offStop = watchStopSignals(runtime, ["SIGTERM", "SIGHUP"], () => {
    repl.terminated = true;
    repl.turn?.abort();
    repl.session.abort();
    input.cancel();
  });
  io.err("agent interactive session — /help for commands, /exit to quit\n");
  let resume = options.resume;
  if (resume !== undefined) {
    // History is drawn from the JSONL only: no hook of the earlier session runs again (TOOL-64).
    io.err(`agent: resuming session ${resume.sessionId}\n`);
    for (const line of historyLines(resume.records, repl.loaded.settings.hooks)) io.err(`${line}\n`);
  }
  let source: "startup" | "clear" = "startup";
  try {
    for (;;) {
      const { result, ending } = await runOneSession(repl, source, resume);
      if (repl.terminated || ending !== "clear" || result.stopReason !== "completed") return result;
      source = "clear";
      resume = undefined;
      io.err("agent: conversation cleared; new session\n");
    }
  } finally {
    offSignal();
    offStop();
    input.close();
  }
}

function onInterrupt(repl: Repl): void {
  if (repl.asking) {
    // At a permission prompt: deny, and cancel the turn.
    repl.turn?.abort();
    repl.input.cancel();
    return;
  }
  if (repl.input.waiting()) {
    repl.input.interrupt();
    return;
  }
  // While the agent works: cancel this turn only.
  if (repl.turn !== null && !repl.turn.signal.aborted) {
    repl.turn.abort();
    return;
  }
  exitNow("SIGINT");
}

/** One AgentSession, from session_start to session_end; `ending` is `clear` after `/clear`. */
async function runOneSession(repl: Repl, source: "startup" | "clear", resume: InteractiveOptions["resume"]): Promise<{ result: SessionResult; ending: "exit" | "clear" }> {
  const renderer = createActivityRenderer(createRenderer(repl.runtime, repl.io, { format: "text" }), repl.loaded.settings.hooks);
  const session = new AgentSession({
    ...repl.options.agent,
    ...(resume !== undefined ? { resume } : {}),
    onLine: (line) => renderer.observeLine(line),
    signal: repl.session.signal,
    startSource: source,
    askPermission: (request) => askPermission(repl, request),
  });
  const render = async <R>(stream: EventStream<R>): Promise<R> => {
    for await (const event of stream) renderer.event(event);
    return stream.result;
  };
  const finish = async (end: EndOptions): Promise<SessionResult> => {
    const result = await render(session.end(end));
    renderer.finish(result);
    return result;
  };
  const started = await render(session.start());
  if (started !== null) return { result: await finish({ stop: started }), ending: "exit" };
  for (;;) {
    const next = await readCommand(repl, session, render);
    if (next.type === "end") return { result: await finish({ reason: next.reason }), ending: next.reason };
    repl.turn = new AbortController();
    const outcome = await render(session.prompt(next.text, { signal: repl.turn.signal }));
    repl.turn = null;
    if (outcome.endsSession) return { result: await finish({ stop: outcome }), ending: "exit" };
    const over = turnOverNotice(outcome);
    if (over !== null) renderer.event({ type: "notice", kind: over.kind, text: over.text });
  }
}

/** Interactive: a turn that ended without ending the session says why, then the prompt returns. */
function turnOverNotice(outcome: TurnOutcome): { kind: "info" | "warning"; text: string } | null {
  if (outcome.stopReason === "interrupted") return { kind: "info", text: "agent: turn cancelled" };
  if (outcome.message !== null) return { kind: "warning", text: `agent: turn ended (${outcome.stopReason}): ${outcome.message}` };
  return null;
}

type Render = <R>(stream: EventStream<R>) => Promise<R>;

/** Reads lines until a prompt or the end; slash commands run here, between turns. */
async function readCommand(repl: Repl, session: AgentSession, render: Render): Promise<{ type: "prompt"; text: string } | { type: "end"; reason: "exit" | "clear" }> {
  const { io, options } = repl;
  for (;;) {
    if (repl.terminated) return { type: "end", reason: "exit" };
    const line = await repl.input.read("> ", {
      idleMs: options.idleMs,
      onIdle: async () => {
        const shown = await render(session.notify("idle_prompt", "agent", "agent is waiting for your input"));
        if (shown) io.err(`\n${shown.title}: ${shown.message}\n> `);
      },
    });
    if (line === null || repl.terminated) return { type: "end", reason: "exit" };
    const text = line.trim();
    if (text === "") continue;
    if (!text.startsWith("/")) return { type: "prompt", text: line };
    const [command = "", ...rest] = text.split(/\s+/);
    const argument = rest.join(" ");
    switch (command) {
      case "/exit":
      case "/quit":
        return { type: "end", reason: "exit" };
      case "/clear":
        return { type: "end", reason: "clear" };
      case "/help":
        io.err(`${HELP_TEXT}\n`);
        continue;
      case "/compact":
        await render(session.compact(argument));
        continue;
      case "/hooks":
        await hooksCommand(repl, session, render, argument);
        continue;
      default:
        io.err(`agent: unknown command ${command} (see /help)\n`);
        continue;
    }
  }
}

async function hooksCommand(repl: Repl, session: AgentSession, render: Render, argument: string): Promise<void> {
  const { io, options } = repl;
  if (argument === "reload") {
    const reloaded = reloadConfig(repl.runtime, io, repl.loaded, options.hooksOff);
    if (reloaded === null) return;
    repl.loaded = reloaded;
    // Hooks off: the reload loaded only the managed layer's hooks, which stay on.
    await render(session.reloadHooks(reloaded.hooks));
    io.err(`agent: hooks reloaded (${reloaded.hooks.length} loaded, ${reloaded.warnings.length} warnings)\n`);
  } else if (argument === "") {
    io.err(`${hooksListing(repl.loaded, options.hooksOff)}\n`);
  } else {
    io.err(`agent: unknown /hooks argument "${argument}" (use /hooks or /hooks reload)\n`);
  }
}

async function askPermission(repl: Repl, request: PermissionAsk): Promise<PermissionAnswer> {
  const { io } = repl;
  if (request.notification) io.err(`${request.notification.title}: ${request.notification.message}\n`);
  const always = request.alwaysRule ? ` [a] always this session (${request.alwaysRule})` : "";
  repl.asking = true;
  const line = await repl.input.read(`allow ${request.tool}: ${request.detail}? [y] once${always} [n] no: `).finally(() => {
    repl.asking = false;
  });
  const answer = (line ?? "").trim().toLowerCase();
  if (repl.turn?.signal.aborted) return "deny";
  if (answer === "y" || answer === "yes") return "once";
  if ((answer === "a" || answer === "always") && request.alwaysRule) return "always";
  return "deny";
}

/** `/hooks`: loaded hooks in run order, then the load warnings (DIR-13). */
function hooksListing(loaded: LoadedConfig, hooksOff: boolean): string {
  if (hooksOff && loaded.hooks.length === 0) return "hooks disabled";
  const lines = hooksOff ? ["hooks disabled; the managed policy's hooks still run:"] : loaded.hooks.length === 0 ? ["no hooks loaded"] : [`${loaded.hooks.length} hooks loaded:`];
  for (const spec of loaded.hooks) {
    lines.push(escapeControls(`  ${spec.event} ${spec.label} (${spec.scope} ${spec.form}, matcher ${matcherText(spec)}, ${policyText(spec)}${spec.disabled ? ", disabled" : ""}): ${commandText(spec)}`));
  }
  if (loaded.warnings.length > 0) {
    lines.push(`${loaded.warnings.length} load warnings:`);
    for (const warning of loaded.warnings) lines.push(`  ${formatWarning(warning, { projectRoot: loaded.projectRoot })}`);
  }
  return lines.join("\n");
}

/** `/hooks reload`: the new config, or null (with the D17 message) when the project changed since trust (DIR-14). */
function reloadConfig(runtime: Runtime, io: CliIO, previous: LoadedConfig, hooksOff: boolean): LoadedConfig | null {
  const loaded = loadConfig(runtime, { cwd: previous.cwd, ...(hooksOff ? { noHooks: true } : {}) });
  if (hooksOff) return loaded;
  const decision = trustDecision(runtime, loaded);
  if (!decision.ok) {
    io.err(`${decision.message}\n`);
    io.err("agent: hooks not reloaded; the previous hooks stay in force\n");
    return null;
  }
  return loaded;
}
