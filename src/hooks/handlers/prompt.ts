/**
 * `type = "prompt"` lifecycle hooks: one tool-less request to the session's
 * provider, whose reply must be Claude Code's prompt-hook JSON `{"ok": true|false, "reason"?}`.
 * The prompt is the hook's template with `$ARGUMENTS` replaced by the event's claude payload
 * (appended after a blank line when the template has no `$ARGUMENTS`, as Claude Code does).
 *
 * The verdict becomes the run a claude command would have had, so the dialect's per-event table
 * applies unchanged: `ok: false` is exit 2 with the reason on stderr (pre_tool: deny; stop,
 * user_prompt_submit: block; post_tool: feedback…), `ok: true` is exit 0 with no output, i.e. no
 * opinion: a model's yes never approves a tool call the permission rules would ask about. A reply
 * that is not that JSON is a failure of category `exit`; no reply in time is `timeout`; a provider
 * error is `runner`. Under `--provider script` the reply comes from the script's `hooks` table,
 * keyed by the hook's label (src/providers/script.ts).
 */
import * as v from "valibot";
import type { LifecycleHookSpec, PromptHandler } from "../types.ts";
import type { ProcessRun } from "../dialects/types.ts";
import type { Provider } from "../../providers/types.ts";
import { formatDuration } from "./runner.ts";
import { errorMessage } from "../../util/errors.ts";

export const PROMPT_HOOK_SYSTEM =
  'You are a hook in a coding agent: judge the event below as the instructions say. Reply with JSON only, no prose: {"ok": true} to let it proceed, or {"ok": false, "reason": "why"} to stop it.';
/** A reply longer than this is not a verdict. */
export const PROMPT_HOOK_REPLY_MAX_CHARS = 64 * 1024;

const VerdictSchema = v.object({ ok: v.boolean(), reason: v.optional(v.string()) });

export type PromptOutcome =
  | { readonly ok: true; readonly run: ProcessRun }
  | { readonly ok: false; readonly category: "exit" | "timeout" | "runner" | "output-limit"; readonly detail: string };

/** The user message: the template with the payload JSON in place of `$ARGUMENTS`. */
export function promptText(template: string, payloadJson: string): string {
  return template.includes("$ARGUMENTS") ? template.split("$ARGUMENTS").join(payloadJson) : `${template}\n\n${payloadJson}`;
}

/** `{"ok": …}` from the reply text (a ```json fence around it is tolerated), or why not. */
export function parseVerdict(text: string): { ok: true; allow: boolean; reason: string | undefined } | { ok: false; detail: string } {
  const trimmed = text
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/, "$1")
    .trim();
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { ok: false, detail: `the model's reply is not JSON {"ok": true|false, "reason"?}: ${JSON.stringify(trimmed.slice(0, 120))}` };
  }
  const parsed = v.safeParse(VerdictSchema, json);
  if (!parsed.success) return { ok: false, detail: `the model's reply is not {"ok": true|false, "reason"?}: ${JSON.stringify(trimmed.slice(0, 120))}` };
  return { ok: true, allow: parsed.output.ok, reason: parsed.output.reason };
}

export interface PromptHookRequest {
  readonly spec: LifecycleHookSpec;
  readonly handler: PromptHandler;
  /** The claude payload, one JSON line. */
  readonly stdin: Uint8Array;
  /** The session's provider, or why there is none (e.g. `agent hooks test` without `--provider`). */
  readonly provider: Provider | string;
  readonly signal?: AbortSignal;
}

const EMPTY = new Uint8Array(0);

/** Runs one prompt hook. Never throws. */
export async function runPromptHook(request: PromptHookRequest): Promise<PromptOutcome> {
  const { spec, handler, provider } = request;
  if (typeof provider === "string") return { ok: false, category: "runner", detail: provider };
  const payload = new TextDecoder().decode(request.stdin).trim();
  const deadline = AbortSignal.timeout(spec.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  let text = "";
  try {
    const stream = provider.stream({
      system: PROMPT_HOOK_SYSTEM,
      messages: [{ role: "user", content: promptText(handler.prompt, payload) }],
      tools: [],
      signal,
      purpose: "hook",
      hookLabel: spec.label,
      ...(handler.model !== undefined ? { model: handler.model } : {}),
    });
    for await (const event of stream) {
      if (event.type === "text_delta") {
        text += event.text;
        if (text.length > PROMPT_HOOK_REPLY_MAX_CHARS)
          return { ok: false, category: "output-limit", detail: `the model's reply exceeded ${PROMPT_HOOK_REPLY_MAX_CHARS} characters` };
      } else if (event.type === "error") {
        if (signal.aborted) break;
        return { ok: false, category: "runner", detail: `provider: ${event.message}` };
      }
    }
  } catch (error) {
    if (!signal.aborted) return { ok: false, category: "runner", detail: `provider: ${errorMessage(error)}` };
  }
  if (signal.aborted) return { ok: false, category: "timeout", detail: deadline.aborted ? `timed out after ${formatDuration(spec.timeoutMs)}` : "cancelled" };
  const verdict = parseVerdict(text);
  if (!verdict.ok) return { ok: false, category: "exit", detail: verdict.detail };
  if (verdict.allow) return { ok: true, run: { kind: "ok", exit: { code: 0, signal: null }, stdout: EMPTY, stderr: EMPTY, detail: "" } };
  const reason = verdict.reason?.trim() || `blocked by prompt hook ${spec.label}`;
  return { ok: true, run: { kind: "ok", exit: { code: 2, signal: null }, stdout: EMPTY, stderr: new TextEncoder().encode(reason), detail: "exited 2" } };
}
