/**
 * The `envelope` dialect (seed 003) for list hooks. encode: payload.ts builds the `agent.tool_hook`
 * stdin; the env is empty because dispatch adds the `AGENT_*` names (env.ts). decode: stdout is
 * ignored except `context_items` from an injecting after-phase hook; any non-zero exit, 2
 * included, is a failure (D22, TOOL-14). `protocol: "claude"`/`"action"` list hooks use the other
 * dialects, never this one.
 */
import * as v from "valibot";
import type { FileSystem } from "../../runtime/types.ts";
import type { ListHookSpec, HookSpec } from "../types.ts";
import { buildEnvelope } from "../payload.ts";
import { utf8Length } from "../secrets/redact.ts";
import type { ContextItemsStatus, Dialect, EncodedRequest, HookReply, ProcessRun } from "./types.ts";

export interface ContextItemsResult {
  readonly status: ContextItemsStatus;
  readonly items: readonly { role: "user"; content: string }[];
  readonly byteCount: number;
}

const StdoutSchema = v.object({ context_items: v.array(v.unknown()) });
const ItemSchema = v.object({ role: v.string(), content: v.unknown() });

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function outcome(status: ContextItemsStatus, items: { role: "user"; content: string }[] = [], byteCount = 0): ContextItemsResult {
  return { status, items, byteCount };
}

/**
 * Seed 003's `context_items` contract, all-or-nothing: strict UTF-8 (D19), JSON, the shape, role
 * `user` only, non-empty string content, total UTF-8 content bytes within `maxBytes`. Empty or
 * whitespace-only stdout is success with no items. Never throws.
 */
export function parseContextItems(stdout: Uint8Array, maxBytes: number): ContextItemsResult {
  let text: string;
  try {
    text = strictUtf8.decode(stdout);
  } catch {
    return outcome("invalid_json");
  }
  if (text.trim() === "") return outcome("success");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return outcome("invalid_json");
  }
  const parsed = v.safeParse(StdoutSchema, json);
  if (!parsed.success) return outcome("invalid_shape");
  const items: { role: "user"; content: string }[] = [];
  let byteCount = 0;
  for (const raw of parsed.output.context_items) {
    const item = v.safeParse(ItemSchema, raw);
    if (!item.success) return outcome("invalid_shape");
    if (item.output.role !== "user") return outcome("unsupported_role");
    const content = item.output.content;
    if (typeof content !== "string" || content.trim() === "") return outcome("empty_content");
    byteCount += utf8Length(content);
    items.push({ role: "user", content });
  }
  if (byteCount > maxBytes) return outcome("over_limit");
  return outcome("success", items, byteCount);
}

function isListSpec(spec: HookSpec): spec is ListHookSpec {
  return spec.form === "list";
}

function injects(spec: ListHookSpec): boolean {
  return spec.providerContextInjection && spec.phase !== "before_tool";
}

/** D15 for shell forms: 127/126 from the shell are `runner`; signals and other codes are `exit`. */
function exitFailure(run: ProcessRun): HookReply["failure"] | undefined {
  const code = run.exit?.code ?? null;
  const signal = run.exit?.signal ?? null;
  if (code === 0) return undefined;
  if (code === 127) return { category: "runner", detail: "command not found (exit 127)" };
  if (code === 126) return { category: "runner", detail: "permission denied (exit 126)" };
  if (code !== null) return { category: "exit", detail: `exited ${code}` };
  return { category: "exit", detail: signal === null ? "exited without a status" : `killed by signal ${signal}` };
}

const EMPTY_REPLY: HookReply = { context: [], hiddenContext: [], suppressOutput: false, warnings: [] };

export function createEnvelopeDialect(deps: { fs: FileSystem; sha256Hex: (data: Uint8Array | string) => string }): Dialect {
  return {
    encode(spec, input, options): EncodedRequest {
      if (!isListSpec(spec)) throw new TypeError("the envelope dialect serves list hooks only (D22)");
      const built = buildEnvelope(spec, input, options, deps);
      return { stdin: built.stdin, env: {}, cleanup: built.cleanup };
    },
    decode(spec, _input, run): HookReply {
      const injecting = isListSpec(spec) && injects(spec);
      const failure = run.kind === "ok" ? exitFailure(run) : { category: run.kind, detail: run.detail };
      if (failure !== undefined) {
        return { ...EMPTY_REPLY, failure, ...(injecting ? { contextItems: outcome("hook_failed") } : {}) };
      }
      if (!injecting || !isListSpec(spec)) return EMPTY_REPLY;
      return { ...EMPTY_REPLY, contextItems: parseContextItems(run.stdout, spec.providerContextMaxBytes) };
    },
  };
}
