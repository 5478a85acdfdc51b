/**
 * The `script` provider: replays `--script FILE` offline. Format (DESIGN.md):
 * `{"turns":[{"reasoning"?, "text"?, "tool_calls"?:[{"id"?, "name", "arguments"}]}], "agents"?:{"<name>":{"turns":[…]}}}`.
 * Each turn request takes the next turn; when the turns run out the reply is an empty final text.
 * A `compact` request answers `compacted conversation` without using a turn. A missing call id is
 * `call_<n>`, n counting from 1 over every call of the session: children made with
 * `createChildScriptProvider` share the parent's counter and replay `agents.<name>` from the start.
 * A prompt hook's request (`purpose: "hook"`) uses no turn either: it answers
 * `hooks["<hook label>"]` (else `hooks["*"]`) of `"hooks"?: {"<label>": "reply text" | {…}}`, an
 * object as its JSON text, so `agent hooks test` and `agent run` can test a prompt hook offline.
 */
import * as v from "valibot";
import type { Runtime } from "../runtime/types.ts";
import type { Provider, ProviderEvent, ProviderRequest } from "./types.ts";
import { errorMessage } from "../util/errors.ts";

const ToolCallSchema = v.object({
  id: v.optional(v.string()),
  name: v.string(),
  arguments: v.union([
    v.string(),
    // A plain JSON object (v.record would accept an array and copy it into an object).
    v.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value)),
  ]),
});
const TurnSchema = v.object({
  reasoning: v.optional(v.string()),
  text: v.optional(v.string()),
  tool_calls: v.optional(v.array(ToolCallSchema)),
});
const TurnsSchema = v.object({ turns: v.array(TurnSchema) });
const HookReplySchema = v.union([
  v.string(),
  v.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value)),
]);
export const ScriptSchema = v.object({
  turns: v.array(TurnSchema),
  agents: v.optional(v.record(v.string(), TurnsSchema)),
  hooks: v.optional(v.record(v.string(), HookReplySchema)),
});

export type Script = v.InferOutput<typeof ScriptSchema>;
export type ScriptTurn = v.InferOutput<typeof TurnSchema>;

export const COMPACT_REPLY = "compacted conversation";
export const SCRIPT_MODEL = "script";

/** `turns[0].tool_calls[0].name` from a valibot issue path. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function issueText(issue: v.BaseIssue<unknown>): string {
  if (issue.input === undefined) return "missing";
  if (issue.type === "union" || Array.isArray(issue.input)) return `expected a string or an object, got ${issue.received}`;
  return `expected ${issue.expected ?? "a valid value"}, got ${issue.received}`;
}

/** Validates script text; the error is one line naming the file and the field path. */
export function parseScript(text: string, fileLabel: string): { ok: true; script: Script } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = errorMessage(error);
    return { ok: false, error: `${fileLabel}: invalid JSON: ${detail}` };
  }
  const result = v.safeParse(ScriptSchema, json);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issuePath(issue);
    return { ok: false, error: `${fileLabel}: ${path === "" ? "" : `${path}: `}${issueText(issue)}` };
  }
  return { ok: true, script: result.output };
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(path);
}

/** Reads and validates `scriptPath` (relative to `runtime.cwd()`). Never throws. */
export function loadScript(runtime: Runtime, scriptPath: string): { ok: true; script: Script } | { ok: false; error: string } {
  const fullPath = isAbsolute(scriptPath) ? scriptPath : `${runtime.cwd().replace(/[\\/]+$/, "")}/${scriptPath}`;
  let text: string | undefined;
  try {
    text = runtime.fs.readText(fullPath);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, error: `${scriptPath}: cannot read script file${typeof code === "string" ? ` (${code})` : ""}` };
  }
  if (text === undefined) return { ok: false, error: `${scriptPath}: script file not found` };
  return parseScript(text, scriptPath);
}

interface CallCounter {
  value: number;
}

export class ScriptProvider implements Provider {
  readonly id = "script" as const;
  readonly model: string;
  readonly script: Script;
  /** The agent whose turns this instance replays; undefined for the main agent. */
  readonly agentName: string | undefined;
  readonly #turns: readonly ScriptTurn[];
  readonly #counter: CallCounter;
  #next = 0;

  constructor(script: Script, options: { model?: string; agentName?: string; counter?: CallCounter } = {}) {
    this.script = script;
    this.model = options.model ?? SCRIPT_MODEL;
    this.agentName = options.agentName;
    this.#turns = options.agentName === undefined ? script.turns : (script.agents?.[options.agentName]?.turns ?? []);
    this.#counter = options.counter ?? { value: 0 };
  }

  /** A child that replays `agents.<agentName>` (no entry: no turns) and shares this call counter. */
  child(agentName: string): ScriptProvider {
    return new ScriptProvider(this.script, { model: this.model, agentName, counter: this.#counter });
  }

  /** Turns not yet replayed. */
  get remainingTurns(): number {
    return Math.max(0, this.#turns.length - this.#next);
  }

  async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
    if (request.signal?.aborted) {
      yield { type: "error", message: "request cancelled", retryable: false };
      return;
    }
    if (request.purpose === "compact") {
      yield { type: "text_delta", text: COMPACT_REPLY };
      yield { type: "done", stopReason: "end_turn" };
      return;
    }
    if (request.purpose === "hook") {
      const label = request.hookLabel ?? "";
      const reply = this.script.hooks?.[label] ?? this.script.hooks?.["*"];
      if (reply === undefined) {
        yield { type: "error", message: `the script has no hooks[${JSON.stringify(label)}] (or hooks["*"]) reply for this prompt hook`, retryable: false };
        return;
      }
      yield { type: "text_delta", text: typeof reply === "string" ? reply : JSON.stringify(reply) };
      yield { type: "done", stopReason: "end_turn" };
      return;
    }
    const turn = this.#turns[this.#next];
    if (!turn) {
      // Out of turns: an empty final reply, so the run ends normally.
      yield { type: "done", stopReason: "end_turn" };
      return;
    }
    this.#next += 1;
    if (turn.reasoning) yield { type: "reasoning_delta", text: turn.reasoning };
    if (turn.text) yield { type: "text_delta", text: turn.text };
    const calls = turn.tool_calls ?? [];
    for (const call of calls) {
      this.#counter.value += 1;
      const id = call.id ?? `call_${this.#counter.value}`;
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      yield { type: "tool_call", id, name: call.name, arguments: args };
    }
    yield { type: "done", stopReason: calls.length > 0 ? "tool_use" : "end_turn" };
  }
}

/** See `ScriptProvider.child`. */
export function createChildScriptProvider(parent: ScriptProvider, agentName: string): ScriptProvider {
  return parent.child(agentName);
}
