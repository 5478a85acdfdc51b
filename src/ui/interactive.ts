/**
 * The interactive session's line UI: reads prompts and slash commands, renders the loop's events as
 * plain lines (the `agent run` text renderer), answers permission asks, and restarts the session on
 * `/clear`. One `runAgent` per session; its `nextPrompt` callback is this REPL.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "../cli/io.ts";
import type { AgentEvent, AgentOptions, NextInput, PermissionAnswer, PermissionAsk, PromptControl, SessionResult } from "../agent/types.ts";
import { runAgent } from "../agent/session.ts";
import { createRenderer } from "./renderer.ts";
import { createActivityRenderer, historyLines } from "./hook-rows.ts";
import type { SessionRecord } from "../session/records.ts";
import type { PromptIO } from "./prompt-io.ts";
import { loadConfig, type LoadedConfig } from "../hooks/registry.ts";
import { checkTrust, refusalMessage, trustListing } from "../hooks/trust.ts";
import { formatWarning } from "../config/warnings.ts";
import { commandText, matcherText, policyText } from "../cli/hooks-list.ts";
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
  /** Everything `runAgent` needs but the interactive callbacks, signal and start source. */
  readonly agent: Omit<AgentOptions, "nextPrompt" | "askPermission" | "turnSignal" | "startSource" | "signal" | "prompt" | "resume" | "onLine">;
  /** `agent --resume ID`: the first session continues this one (a `/clear` starts a fresh one). */
  readonly resume?: { readonly sessionId: string; readonly records: readonly SessionRecord[] };
  readonly loaded: LoadedConfig;
  readonly hooksOff: boolean;
  /** Delay before the idle_prompt notification (DESIGN: 60 s; AGENT_IDLE_PROMPT_MS in tests). */
  readonly idleMs: number;
}

export async function runInteractive(runtime: Runtime, io: CliIO, input: PromptIO, options: InteractiveOptions): Promise<SessionResult> {
  const session = new AbortController();
  let turn: AbortController | null = null;
  let asking = false;
  const offSignal = runtime.onSignal("SIGINT", () => {
    if (asking) {
      // At a permission prompt: deny, and cancel the turn.
      turn?.abort();
      input.cancel();
      return;
    }
    if (input.waiting()) {
      input.interrupt();
      return;
    }
    // While the agent works: cancel this turn only.
    if (turn !== null && !turn.signal.aborted) {
      turn.abort();
      return;
    }
    exitNow(runtime, "SIGINT");
  });

  // SIGTERM/SIGHUP end the whole session like /exit after a cancelled turn: every group is killed,
  // session_end runs, and main.ts exits 143/129. A second one exits at once.
  let terminated = false;
  const offStop = watchStopSignals(runtime, ["SIGTERM", "SIGHUP"], () => {
    terminated = true;
    turn?.abort();
    session.abort();
    input.cancel();
  });

  let loaded = options.loaded;
  const ending: { reason: "exit" | "clear" } = { reason: "exit" };
  let source: "startup" | "clear" = "startup";
  let result: SessionResult;
  io.err("agent interactive session — /help for commands, /exit to quit\n");
  let resume = options.resume;
  if (resume !== undefined) {
    // History is drawn from the JSONL only: no hook of the earlier session runs again (TOOL-64).
    io.err(`agent: resuming session ${resume.sessionId}\n`);
    for (const line of historyLines(resume.records, loaded.settings.hooks)) io.err(`${line}\n`);
  }
  try {
    for (;;) {
      const renderer = createActivityRenderer(createRenderer(runtime, io, { format: "text" }), loaded.settings.hooks);
      const render = (events: readonly AgentEvent[]): void => {
        for (const event of events) renderer.event(event);
      };
      const nextPrompt = async (control: PromptControl): Promise<NextInput> => {
        turn = null;
        for (;;) {
          if (terminated) return { type: "end", reason: "exit" };
          const line = await input.read("> ", {
            idleMs: options.idleMs,
            onIdle: async () => {
              const notified = await control.notify("idle_prompt", "agent", "agent is waiting for your input");
              render(notified.events);
              if (notified.shown) io.err(`\n${notified.shown.title}: ${notified.shown.message}\n> `);
            },
          });
          if (line === null || terminated) {
            ending.reason = "exit";
            return { type: "end", reason: "exit" };
          }
          const text = line.trim();
          if (text === "") continue;
          if (!text.startsWith("/")) {
            turn = new AbortController();
            return { type: "prompt", text: line };
          }
          const [command = "", ...rest] = text.split(/\s+/);
          const argument = rest.join(" ");
          switch (command) {
            case "/exit":
            case "/quit":
              ending.reason = "exit";
              return { type: "end", reason: "exit" };
            case "/clear":
              ending.reason = "clear";
              return { type: "end", reason: "clear" };
            case "/help":
              io.err(`${HELP_TEXT}\n`);
              continue;
            case "/compact":
              render(await control.compact(argument));
              continue;
            case "/hooks":
              if (argument === "reload") {
                const reloaded = reloadConfig(runtime, io, loaded, options.hooksOff);
                if (reloaded !== null) {
                  loaded = reloaded;
                  render(await control.reloadHooks(options.hooksOff ? [] : reloaded.hooks));
                  io.err(`agent: hooks reloaded (${reloaded.hooks.length} loaded, ${reloaded.warnings.length} warnings)\n`);
                }
              } else if (argument === "") {
                io.err(`${hooksListing(loaded, options.hooksOff)}\n`);
              } else {
                io.err(`agent: unknown /hooks argument "${argument}" (use /hooks or /hooks reload)\n`);
              }
              continue;
            default:
              io.err(`agent: unknown command ${command} (see /help)\n`);
              continue;
          }
        }
      };
      const askPermission = async (request: PermissionAsk): Promise<PermissionAnswer> => {
        if (request.notification) io.err(`${request.notification.title}: ${request.notification.message}\n`);
        const always = request.alwaysRule ? ` [a] always this session (${request.alwaysRule})` : "";
        asking = true;
        const line = await input.read(`allow ${request.tool}: ${request.detail}? [y] once${always} [n] no: `).finally(() => {
          asking = false;
        });
        const answer = (line ?? "").trim().toLowerCase();
        if (turn?.signal.aborted) return "deny";
        if (answer === "y" || answer === "yes") return "once";
        if ((answer === "a" || answer === "always") && request.alwaysRule) return "always";
        return "deny";
      };
      const generator = runAgent({
        ...options.agent,
        prompt: "",
        ...(resume !== undefined ? { resume } : {}),
        onLine: (line) => renderer.observeLine(line),
        onEvent: (event) => renderer.event(event),
        signal: session.signal,
        startSource: source,
        nextPrompt,
        askPermission,
        turnSignal: () => (turn ?? new AbortController()).signal,
      });
      let step = await generator.next();
      while (!step.done) {
        renderer.event(step.value);
        step = await generator.next();
      }
      result = step.value;
      renderer.finish(result);
      if (terminated || ending.reason !== "clear" || result.stopReason !== "completed") break;
      source = "clear";
      resume = undefined;
      ending.reason = "exit";
      io.err("agent: conversation cleared; new session\n");
    }
  } finally {
    offSignal();
    offStop();
    input.close();
  }
  return result;
}

/** `/hooks`: loaded hooks in run order, then the load warnings (DIR-13). */
function hooksListing(loaded: LoadedConfig, hooksOff: boolean): string {
  if (hooksOff) return "hooks disabled";
  const lines = loaded.hooks.length === 0 ? ["no hooks loaded"] : [`${loaded.hooks.length} hooks loaded:`];
  for (const spec of loaded.hooks) {
    lines.push(`  ${spec.event} ${spec.label} (${spec.scope} ${spec.form}, matcher ${matcherText(spec)}, ${policyText(spec)}${spec.disabled ? ", disabled" : ""}): ${commandText(spec)}`);
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
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  const state = checkTrust(runtime, loaded.home, loaded.projectRoot, material);
  if (state.status === "untrusted" || state.status === "changed") {
    io.err(`${refusalMessage(state, loaded.projectRoot, trustListing(loaded.hooks, material ?? { hooks: [], settings: {}, scripts: [] }))}\n`);
    io.err("agent: hooks not reloaded; the previous hooks stay in force\n");
    return null;
  }
  return loaded;
}
