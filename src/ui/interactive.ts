/**
 * The interactive session: reads prompts and slash commands (slash-commands.ts), renders the loop's
 * events (the text renderer with colour and markdown, plus Mission Control rows), asks permission
 * questions as menus, and restarts the session on `/clear` and `/resume`. One AgentSession at a
 * time: start, a prompt per line, compact / reload / notify between turns, end.
 */
import type { Runtime } from "../runtime/types.ts";
import type { PermissionAnswer, PermissionAsk, SessionResult, TurnOutcome } from "../agent/types.ts";
import { AgentSession, type EndOptions } from "../agent/agent-session.ts";
import type { EventStream } from "../agent/event-queue.ts";
import { createRenderer, safeText } from "./renderer.ts";
import { createActivityRenderer, historyLines } from "./hook-rows.ts";
import type { PromptIO } from "./prompt-io.ts";
import { exitNow, watchStopSignals } from "../runtime/signals.ts";
import { questionChoices, questionDiff, questionText } from "./permission-question.ts";
import { readCommand, statusLine } from "./slash-commands.ts";
import type { InteractiveOptions, Render, Repl, ResumeSource } from "./repl.ts";
import type { PreparedCommand } from "../plugins/commands.ts";

export type { InteractiveOptions, ResumeSource } from "./repl.ts";

export { HELP_TEXT } from "./slash-commands.ts";

/** Lines of a tool's output shown under it in the session. */
const PREVIEW_LINES = 4;

type Ending = { readonly kind: "exit" } | { readonly kind: "clear" } | { readonly kind: "resume"; readonly source: ResumeSource };

export async function runInteractive(runtime: Runtime, input: PromptIO, options: InteractiveOptions): Promise<SessionResult> {
  const io = input.output;
  const repl: Repl = {
    runtime,
    io,
    input,
    options,
    loaded: options.loaded,
    turn: null,
    asking: false,
    session: new AbortController(),
    terminated: false,
    renderer: null,
    instead: null,
    lastSessionId: null,
  };
  const offSignal = runtime.onSignal("SIGINT", () => onInterrupt(repl));
  input.onInterrupt(() => onInterrupt(repl));
  // SIGTERM/SIGHUP end the whole session like /exit after a cancelled turn: every group is killed,
  // session_end runs, and main.ts exits 143/129. A second one exits at once.
  const offStop = watchStopSignals(runtime, ["SIGTERM", "SIGHUP"], () => {
    repl.terminated = true;
    repl.turn?.abort();
    repl.session.abort();
    input.cancel();
  });
  io.err(`${options.style.bold("agent")} interactive session — /help for commands and keys, /exit to quit\n`);
  let resume = options.resume;
  let source: "startup" | "clear" = "startup";
  try {
    for (;;) {
      if (resume !== undefined) showHistory(repl, resume);
      const { result, ending } = await runOneSession(repl, source, resume);
      if (repl.terminated || ending.kind === "exit" || result.stopReason !== "completed") return result;
      source = "clear";
      resume = ending.kind === "resume" ? ending.source : undefined;
      if (ending.kind === "clear") io.err("agent: conversation cleared; new session\n");
    }
  } finally {
    offSignal();
    offStop();
    input.close();
    if (repl.lastSessionId !== null && options.agent.persist === true) io.err(`agent: resume this session with: agent --resume ${repl.lastSessionId}\n`);
  }
}

/** History is drawn from the JSONL only: no hook of the earlier session runs again (TOOL-64). */
function showHistory(repl: Repl, resume: ResumeSource): void {
  repl.io.err(`agent: resuming session ${resume.sessionId}\n`);
  for (const line of historyLines(resume.records, repl.loaded.settings.hooks, repl.options.style)) repl.io.err(`${line}\n`);
}

function onInterrupt(repl: Repl): void {
  if (repl.asking) {
    // At a permission question: deny it, and cancel the turn.
    repl.input.cancel();
    return;
  }
  if (repl.input.waiting()) {
    repl.input.interrupt();
    return;
  }
  // While the agent works: cancel this turn only. Hooks the interrupt kills are no failures.
  if (repl.turn !== null && !repl.turn.signal.aborted) {
    repl.renderer?.interrupted?.();
    repl.turn.abort();
    return;
  }
  exitNow("SIGINT");
}

/** One AgentSession, from session_start to session_end. */
async function runOneSession(repl: Repl, source: "startup" | "clear", resume: ResumeSource | undefined): Promise<{ result: SessionResult; ending: Ending }> {
  const look = { style: repl.options.style, previewLines: PREVIEW_LINES, columns: () => repl.input.columns() };
  const renderer = createActivityRenderer(createRenderer(repl.runtime, repl.io, { format: "text", interactive: look }), repl.loaded.settings.hooks);
  repl.renderer = renderer;
  const session = new AgentSession({
    ...repl.options.agent,
    ...(resume !== undefined ? { resume: { sessionId: resume.sessionId, records: [...resume.records] } } : {}),
    onLine: (line) => renderer.observeLine(line),
    signal: repl.session.signal,
    startSource: source,
    askPermission: (request) => askPermission(repl, request),
  });
  repl.lastSessionId = session.sessionId;
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
  if (started !== null) return { result: await finish({ stop: started }), ending: { kind: "exit" } };
  for (;;) {
    const next = await nextPrompt(repl, session, render);
    if (next.type === "end") return { result: await finish({ reason: next.ending.kind === "exit" ? "exit" : "clear" }), ending: next.ending };
    repl.turn = new AbortController();
    const outcome = await render(session.prompt(next.text, { signal: repl.turn.signal, ...(next.command ? { command: next.command } : {}) }));
    repl.turn = null;
    const stopped = renderer.turnDone?.() ?? [];
    if (outcome.endsSession) return { result: await finish({ stop: outcome }), ending: { kind: "exit" } };
    const over = turnOverNotice(outcome, stopped, repl.instead !== null);
    if (over !== null) repl.io.err(`${over}\n`);
  }
}

async function nextPrompt(
  repl: Repl,
  session: AgentSession,
  render: Render,
): Promise<{ type: "prompt"; text: string; command?: PreparedCommand } | { type: "end"; ending: Ending }> {
  if (repl.instead !== null) {
    const text = repl.instead;
    repl.instead = null;
    repl.io.err(`> ${safeText(text)}\n`);
    return { type: "prompt", text };
  }
  return readCommand(repl, session, render, () => statusLine(repl));
}

/** A turn that ended without ending the session says why (at once), then the prompt returns. */
function turnOverNotice(outcome: TurnOutcome, stopped: readonly string[], instead: boolean): string | null {
  const hooks = stopped.length > 0 ? `; stopped hook ${stopped.join(", ")}` : "";
  if (outcome.stopReason === "interrupted") return instead ? null : `agent: turn cancelled${hooks}`;
  if (outcome.message !== null) return `agent: turn ended (${outcome.stopReason}): ${safeText(outcome.message)}`;
  return null;
}

async function askPermission(repl: Repl, request: PermissionAsk): Promise<PermissionAnswer> {
  const { io, input } = repl;
  repl.renderer?.question(request.tool, request.detail);
  if (request.notification) io.err(`${safeText(`${request.notification.title}: ${request.notification.message}`)}\n`);
  repl.asking = true;
  let answer: string | null;
  try {
    const diff = questionDiff(repl.runtime.fs, repl.options.agent.cwd, request);
    answer = await input.choose(questionText(request), questionChoices(request), diff);
  } finally {
    repl.asking = false;
  }
  if (repl.turn?.signal.aborted) return "deny";
  if (answer === "once") return "once";
  if ((answer === "always" || answer === "always-project" || answer === "always-user") && request.alwaysRule) return answer;
  if (answer === "tell") {
    repl.asking = true;
    const text = await input.ask("tell the model what to do instead: ").finally(() => {
      repl.asking = false;
    });
    if (text !== null && text.trim() !== "") {
      repl.instead = text;
      io.err(`agent: denied ${safeText(request.tool)}; your instructions go to the model next\n`);
      cancelTurn(repl);
      return "deny";
    }
  }
  if (answer === null) {
    // Ctrl-C or Esc at the question (or the input ended): a denial, and the turn stops.
    io.err(`agent: denied ${safeText(request.tool)} (question cancelled)\n`);
    cancelTurn(repl);
  }
  return "deny";
}

function cancelTurn(repl: Repl): void {
  if (repl.turn === null || repl.turn.signal.aborted) return;
  repl.renderer?.interrupted?.();
  repl.turn.abort();
}
