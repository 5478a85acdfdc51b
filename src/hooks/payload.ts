/**
 * Building the seed-003 `agent.tool_hook` envelope for list hooks: payload modes, the 1 MiB stdin
 * cap, `payload_ref` spill files and `omitted_too_large` summaries (D14, SEC-21..24, SEC-43,
 * TOOL-40..53, TOOL-68). Wire names are snake_case here because this module speaks the wire.
 */
import type { FileSystem } from "../runtime/types.ts";
import type { EncodeOptions, HookEventInput } from "./dialects/types.ts";
import type { ListHookSpec } from "./types.ts";
import { affectedPaths, type AffectedPath } from "./affected-paths.ts";
import { redactPayload, redactText } from "./secrets/redact.ts";
import { SPILL_MAX_BYTES, STDIN_MAX_BYTES, cleanupSpill } from "./spill.ts";

export const ENVELOPE_SCHEMA = "agent.tool_hook";
export const ENVELOPE_SCHEMA_VERSION = 1;

/**
 * Compact JSON without recursion (a 10,000-deep tool input must not overflow the stack). Same
 * output as `JSON.stringify` for JSON-shaped values; `undefined` members are dropped.
 */
export function stringifyJson(value: unknown): string {
  const parts: string[] = [];
  type Step = { kind: "value"; value: unknown } | { kind: "text"; text: string };
  const stack: Step[] = [{ kind: "value", value }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if (step.kind === "text") {
      parts.push(step.text);
      continue;
    }
    const item = step.value;
    if (Array.isArray(item)) {
      const steps: Step[] = [{ kind: "text", text: "[" }];
      item.forEach((element, index) => {
        if (index > 0) steps.push({ kind: "text", text: "," });
        steps.push({ kind: "value", value: element === undefined || typeof element === "function" ? null : element });
      });
      steps.push({ kind: "text", text: "]" });
      for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i]!);
    } else if (item !== null && typeof item === "object") {
      const steps: Step[] = [{ kind: "text", text: "{" }];
      let first = true;
      for (const [key, child] of Object.entries(item)) {
        if (child === undefined || typeof child === "function") continue;
        steps.push({ kind: "text", text: `${first ? "" : ","}${JSON.stringify(key)}:` });
        steps.push({ kind: "value", value: child });
        first = false;
      }
      steps.push({ kind: "text", text: "}" });
      for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i]!);
    } else {
      parts.push(JSON.stringify(item) ?? "null");
    }
  }
  return parts.join("");
}

const encoder = new TextEncoder();

export interface EnvelopeDeps {
  readonly fs: FileSystem;
  readonly sha256Hex: (data: Uint8Array | string) => string;
}

export interface BuiltEnvelope {
  readonly stdin: Uint8Array;
  /** Spill file and directory to delete after the hook exits; [] when nothing was spilled. */
  readonly cleanup: readonly string[];
  readonly status: "inline" | "referenced" | "omitted_too_large";
}

function isMessagePhase(phase: ListHookSpec["phase"]): phase is "after_assistant" | "after_reasoning" {
  return phase === "after_assistant" || phase === "after_reasoning";
}

function toolSection(spec: ListHookSpec, input: HookEventInput): { name: string; call_id: string } {
  if (isMessagePhase(spec.phase)) {
    const name = spec.phase === "after_assistant" ? "assistant" : "reasoning";
    const turn = input.context.turnId.startsWith("turn-") ? input.context.turnId : `turn-${input.context.turnId}`;
    return { name, call_id: `${name}-${turn}` };
  }
  return { name: input.tool?.name ?? "", call_id: input.tool?.callId ?? "" };
}

function contextSection(input: HookEventInput, timestamp: string): Record<string, unknown> {
  const persisted = input.context.sessionPath !== null;
  return {
    cwd: input.cwd,
    session_id: persisted && input.sessionId !== "" ? input.sessionId : null,
    session_path: input.context.sessionPath,
    provider_id: input.context.providerId,
    model_id: input.context.modelId,
    agent_id: input.context.agentId,
    invocation_mode: input.context.invocationMode,
    turn_id: input.context.turnId,
    message_id: input.context.messageId,
    subagent: input.context.subagent,
    timestamp,
  };
}

/** The raw `request` and (after_tool) `result` bodies, before any payload mode applies. */
function rawBodies(spec: ListHookSpec, input: HookEventInput): { request: unknown; result?: Record<string, unknown> } {
  if (isMessagePhase(spec.phase)) {
    const text = input.fields.text;
    return { request: { text: typeof text === "string" ? text : "" } };
  }
  const request = input.tool?.input ?? {};
  if (spec.phase !== "after_tool") return { request };
  return {
    request,
    result: {
      tool_name: input.tool?.name ?? "",
      success: input.result?.success ?? false,
      content: input.result?.content ?? "",
      metadata: input.result?.metadata ?? {},
    },
  };
}

/** Redacted bodies: key rules and detector on request; result keeps tool_name/success, hides content. */
function redactedBodies(bodies: { request: unknown; result?: Record<string, unknown> }, envValues: readonly string[]) {
  const request = redactPayload(bodies.request, { envValues });
  if (bodies.result === undefined) return { request };
  return {
    request,
    result: {
      tool_name: bodies.result.tool_name,
      success: bodies.result.success,
      content: "<redacted:tool-output>",
      metadata: redactPayload(bodies.result.metadata, { envValues }),
    },
  };
}

function encodeLine(envelope: Record<string, unknown>): Uint8Array {
  return encoder.encode(`${stringifyJson(envelope)}\n`);
}

/** What every form of one envelope shares: its head, its data, and the legacy top-level fields. */
interface EnvelopeParts {
  readonly head: Record<string, unknown>;
  readonly data: Record<string, unknown>;
  readonly legacy: (request: unknown, result: unknown) => Record<string, unknown>;
  readonly bodies: { readonly request: unknown; readonly result?: unknown };
}

function envelopeParts(spec: ListHookSpec, input: HookEventInput, options: EncodeOptions, deps: EnvelopeDeps): EnvelopeParts {
  const mode = spec.payload;
  const raw = rawBodies(spec, input);
  const bodies = mode === "full" ? raw : redactedBodies(raw, input.strippedEnvValues);
  const paths: AffectedPath[] =
    isMessagePhase(spec.phase) || input.tool === undefined
      ? []
      : affectedPaths(
          deps.fs,
          input.tool.name,
          input.tool.input,
          input.cwd,
          mode === "full" ? {} : { redact: (path) => redactText(path, input.strippedEnvValues) },
        );
  const head: Record<string, unknown> = {
    schema: ENVELOPE_SCHEMA,
    schema_version: ENVELOPE_SCHEMA_VERSION,
    phase: spec.phase,
    hook: { label: spec.label, index: options.hookIndex, failure_policy: spec.failurePolicy, payload_mode: mode },
    tool: toolSection(spec, input),
    context: contextSection(input, options.timestamp),
    affected_paths: paths,
  };
  const hasResult = bodies.result !== undefined;
  const data = hasResult ? { request: bodies.request, result: bodies.result } : { request: bodies.request };
  const legacy = (request: unknown, result: unknown) => ({ cwd: input.cwd, payload_mode: mode, request, ...(hasResult ? { result } : {}) });
  return { head, data, legacy, bodies };
}

/** A full-mode body moved to a `payload_ref` file, or null when it cannot be (then it is omitted). */
function spilledEnvelope(parts: EnvelopeParts, dataBytes: Uint8Array, options: EncodeOptions, deps: EnvelopeDeps): BuiltEnvelope | null {
  const spilled = options.spill?.(dataBytes) ?? null;
  if (spilled === null) return null;
  const summary = { status: "moved_to_payload_ref", original_bytes: dataBytes.length, omitted_fields: ["request", "result"] };
  const stdin = encodeLine({
    ...parts.head,
    payload: { inline: false, status: "referenced" },
    payload_ref: {
      path: spilled.path,
      bytes: dataBytes.length,
      payload_mode: "full",
      media_type: "application/json",
      digest_sha256: `sha256:${deps.sha256Hex(dataBytes)}`,
    },
    ...parts.legacy(summary, summary),
  });
  if (stdin.length <= STDIN_MAX_BYTES) return { stdin, cleanup: [spilled.path, spilled.dir], status: "referenced" };
  cleanupSpill(deps.fs, [spilled.dir]);
  return null;
}

/**
 * Builds the stdin bytes for one list hook. Redacted mode (default) is never spilled; a full-mode
 * body that would pass the 1 MiB cap is spilled through `options.spill` (absent or failing:
 * `omitted_too_large`). Never throws.
 */
export function buildEnvelope(spec: ListHookSpec, input: HookEventInput, options: EncodeOptions, deps: EnvelopeDeps): BuiltEnvelope {
  const mode = spec.payload;
  const parts = envelopeParts(spec, input, options, deps);
  const inline = encodeLine({
    ...parts.head,
    payload: { inline: true, status: "inline", data: parts.data },
    payload_ref: null,
    ...parts.legacy(parts.bodies.request, parts.bodies.result),
  });
  if (inline.length <= STDIN_MAX_BYTES) return { stdin: inline, cleanup: [], status: "inline" };

  const dataBytes = encoder.encode(stringifyJson(parts.data));
  if (mode === "full" && dataBytes.length <= SPILL_MAX_BYTES) {
    const spilled = spilledEnvelope(parts, dataBytes, options, deps);
    if (spilled !== null) return spilled;
  }

  const reason =
    mode === "redacted"
      ? "redacted payload exceeds the 1 MiB stdin cap"
      : dataBytes.length > SPILL_MAX_BYTES
        ? "payload exceeds the 64 MiB payload_ref cap"
        : "payload_ref spill file could not be created";
  const summary = { status: "omitted_too_large", original_bytes: dataBytes.length, omitted_fields: ["request", "result"], reason };
  const omitted = encodeLine({ ...parts.head, payload: { inline: false, status: "omitted_too_large" }, payload_ref: null, ...parts.legacy(summary, summary) });
  if (omitted.length <= STDIN_MAX_BYTES) return { stdin: omitted, cleanup: [], status: "omitted_too_large" };
  // Only a pathological label or cwd gets here: keep the stdin valid JSON under the cap anyway.
  return {
    stdin: encodeLine({
      schema: ENVELOPE_SCHEMA,
      schema_version: ENVELOPE_SCHEMA_VERSION,
      phase: spec.phase,
      payload: { inline: false, status: "omitted_too_large" },
      payload_ref: null,
    }),
    cleanup: [],
    status: "omitted_too_large",
  };
}
