/**
 * Mission Control rows for the interactive session (seed 003 "Mission Control visibility", TOOL-64,
 * TOOL-65): hook rows from `hook_lifecycle` records and provider-context-injection rows from
 * `hook_context_injection` records, drawn as indented children of the tool (or message) activity.
 * Display only: nothing here changes what runs or what the provider gets. The same formatting serves
 * the live session (from `hook_record` events) and a resumed session's history (from the JSONL).
 */
import { toolCallDetail } from "../tools/describe.ts";
import type { AgentEvent, SessionResult } from "../agent/types.ts";
import type { RecordOf, SessionRecord } from "../session/records.ts";
import { parseRecord } from "../session/records.ts";
import { redactText } from "../hooks/secrets/redact.ts";
import { safeText, type Renderer } from "./renderer.ts";
import { todosOfMetadata, type TodoItem } from "../tools/todo-list.ts";
import { planRows } from "./plan.ts";
import { plainStyle, type Style } from "./style.ts";

export interface HookRowSettings {
  readonly showInTui: boolean;
  readonly injectedContent: { readonly showInTranscript: boolean; readonly showInActivityTree: boolean; readonly style: "content" | "metadata" };
}

const CHILD = "  ↳ ";
const ROOT = "↳ ";
const CONTENT_MAX_CHARS = 200;
const STATUS_TEXT = { started: "running", success: "success", failed: "failed" } as const;

/**
 * `hook before_tool · audit · bash · running`; a failure adds its category and policy. A hook the
 * interrupt stopped (recorded as a `timeout` with the message `cancelled`) says `cancelled`: it did
 * not time out, and its policy did not apply.
 */
export function lifecycleRow(record: RecordOf<"hook_lifecycle">): string {
  const parts = [`hook ${record.phase}`, record.label];
  if (record.target_tool !== null) parts.push(record.target_tool);
  const cancelled = record.status === "failed" && record.category === "timeout" && record.message === "cancelled";
  parts.push(cancelled ? "cancelled" : STATUS_TEXT[record.status]);
  if (record.status === "failed" && !cancelled) parts.push(record.category ?? "unknown", `policy ${record.policy}`);
  return `${record.target_tool === null ? ROOT : CHILD}${parts.join(" · ")}`;
}

/** `provider context injection · memory-after · success · 1 item · 42 bytes` (TOOL-65). */
export function injectionSummary(record: RecordOf<"hook_context_injection">): string {
  const items = `${record.item_count} ${record.item_count === 1 ? "item" : "items"}`;
  const bytes = `${record.byte_count} ${record.byte_count === 1 ? "byte" : "bytes"}`;
  return `provider context injection · ${record.label} · ${record.status} · ${items} · ${bytes}`;
}

/** One injected item as a single redacted line, cut at CONTENT_MAX_CHARS. */
export function contentLine(content: string): string {
  const flat = redactText(content).replace(/\s+/g, " ").trim();
  return flat.length > CONTENT_MAX_CHARS ? `${flat.slice(0, CONTENT_MAX_CHARS)}…` : flat;
}

/**
 * Pairs each `hook_context_injection` record with the `provider_context_item` records written right
 * after it (its items, in order). Any other record closes the open injections, so context items of
 * other origins (session_start, prompt context) are never attributed to a hook.
 */
export class InjectionContents {
  private readonly entries: { remaining: number; readonly contents: string[] }[] = [];

  observe(record: SessionRecord): void {
    if (record.type === "hook_context_injection") {
      this.entries.push({ remaining: record.status === "success" ? record.item_count : 0, contents: [] });
    } else if (record.type === "provider_context_item") {
      const open = this.entries.find((entry) => entry.remaining > 0);
      if (open === undefined) return;
      open.contents.push(record.content);
      open.remaining -= 1;
    } else {
      for (const entry of this.entries) entry.remaining = 0;
    }
  }

  /** The items of the n-th injection record observed (0-based); [] while not known. */
  contentsOf(ordinal: number): readonly string[] {
    return this.entries[ordinal]?.contents ?? [];
  }
}

/** The rows one injection record adds under the enabled surfaces; content lines only with style `content`. */
export function injectionRows(record: RecordOf<"hook_context_injection">, contents: readonly string[], settings: HookRowSettings): string[] {
  const { showInTranscript, showInActivityTree, style } = settings.injectedContent;
  const summary = injectionSummary(record);
  const withContent = (head: string, indent: string): string[] => [
    head,
    ...(style === "content" ? contents.map((text) => `${indent}  │ ${contentLine(text)}`) : []),
  ];
  const rows: string[] = [];
  if (showInTranscript) rows.push(...withContent(summary, ""));
  // A child of the related tool/message activity when there is one, else a root row.
  if (showInActivityTree) rows.push(...withContent(`${record.target_tool === null ? ROOT : CHILD}${summary}`, record.target_tool === null ? "" : "  "));
  return rows;
}

/**
 * A resumed session's history, rebuilt from its records without running anything: prompts, replies,
 * tool activity, a plan's checklist, every recorded hook row (persisted history does not depend on
 * `show_in_tui`, seed 003) and, when a surface gate is on, the injection rows. The lines are
 * escaped for the terminal (only `style`'s own escapes are in them).
 */
export function historyLines(records: readonly SessionRecord[], settings: HookRowSettings, style: Style = plainStyle): string[] {
  return historyText(records, settings).flatMap((line) => (typeof line === "string" ? [safeText(line)] : planRows(line.plan, style, safeText)));
}

/** A history line, or a plan drawn as checklist rows. */
type HistoryLine = string | { readonly plan: readonly TodoItem[] };

function historyText(records: readonly SessionRecord[], settings: HookRowSettings): HistoryLine[] {
  const contents = new InjectionContents();
  for (const record of records) contents.observe(record);
  const lines: HistoryLine[] = [];
  let injections = 0;
  for (const record of records) {
    switch (record.type) {
      case "user":
        lines.push(`> ${record.content}`);
        break;
      case "assistant":
        if (record.content.trim() !== "") lines.push(record.content.trimEnd());
        break;
      case "tool_call":
        lines.push(`● ${record.tool_name}: ${toolCallDetail(record.tool_name, record.input)}`);
        break;
      case "tool_result": {
        const first = record.content.split("\n").find((line) => line.trim() !== "") ?? "";
        const mark = record.success ? "ok" : record.metadata.rejected === true ? "rejected" : "error";
        lines.push(`  ⎿ ${mark}${first ? `: ${first.slice(0, 160)}` : ""}`);
        const plan = record.success && record.tool_name === "todo_write" ? todosOfMetadata(record.metadata) : undefined;
        if (plan !== undefined) lines.push({ plan });
        break;
      }
      case "hook_lifecycle":
        lines.push(lifecycleRow(record));
        break;
      case "hook_context_injection":
        lines.push(...injectionRows(record, contents.contentsOf(injections), settings));
        injections += 1;
        break;
      default:
        break;
    }
  }
  return lines;
}

export interface ActivityRenderer extends Renderer {
  /** Every session line as written (AgentOptions.onLine): pairs injection records with their items. */
  observeLine(line: string): void;
  /** A permission question is about to be shown for a call of `tool`: print its tool line first. */
  question(tool: string, detail: string): void;
}

interface HeldNotice {
  readonly kind: "info" | "failure";
  readonly text: string;
}

/**
 * Wraps the line renderer with hook and injection rows, in the order of the session JSONL. A tool's
 * line is printed as soon as something is shown for its call, from the `tool_call` record: its
 * pre-phase hook rows (live, while each hook runs) or its permission question. Its `tool_start`
 * then prints only when a hook changed the input (the line shows what runs). Post-phase rows (and
 * the D21 failure lines of its hooks) follow its result line. Rows without a tool print where they occur.
 */
export function createActivityRenderer(inner: Renderer, settings: HookRowSettings): ActivityRenderer {
  return new ActivityTree(inner, settings);
}

class ActivityTree implements ActivityRenderer {
  private readonly contents = new InjectionContents();
  private injections = 0;
  /** Calls as recorded (`tool_call`), in order: the line a call gets before its tool starts. */
  private readonly calls = new Map<string, { readonly name: string; readonly detail: string }>();
  /** The detail each call's line shows, once printed. */
  private readonly shown = new Map<string, string>();
  private readonly started = new Set<string>();
  private readonly ended = new Set<string>();
  /** Rows of a call whose line cannot be printed yet (no tool_call record seen), or of its post phase. */
  private readonly held = new Map<string, HeldNotice[]>();
  /** The tool call between its start and end line (calls other than `task` run one at a time). */
  private open: string | null = null;
  /** A question's line printed without a known call: its tool_start is not printed again. */
  private announced: string | null = null;
  // An injection record is written before its provider_context_item records (D25), and live events
  // arrive as records are written: its rows wait until the next event, when its items are known.
  private pendingInjections: SessionRecord[] = [];

  constructor(
    private readonly inner: Renderer,
    private readonly settings: HookRowSettings,
  ) {}

  lastCollapsed(): string | null {
    return this.inner.lastCollapsed?.() ?? null;
  }

  observeLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = parseRecord(value);
    if (!parsed.ok) return;
    this.contents.observe(parsed.record);
    const record = parsed.record;
    if (record.type === "tool_result" && record.tool_name === "todo_write") {
      const todos = todosOfMetadata(record.metadata);
      if (todos !== undefined) this.inner.plan?.(record.tool_call_id, todos);
    }
    if (record.type === "tool_call") this.calls.set(record.tool_call_id, { name: record.tool_name, detail: toolCallDetail(record.tool_name, record.input) });
  }

  event(event: AgentEvent): void {
    if (event.type === "hook_record" && event.record.type === "hook_context_injection") {
      this.pendingInjections.push(event.record);
      return;
    }
    this.flushInjections();
    switch (event.type) {
      case "hook_record": {
        const lines = this.rowsOf(event.record);
        const callId = event.record.type === "hook_lifecycle" ? event.record.tool_call_id : null;
        if (callId === null) return this.print(lines);
        for (const text of lines) this.forCall(callId, { kind: "info", text });
        return;
      }
      case "notice":
        if (event.kind === "failure" && this.open !== null) this.forCall(this.open, { kind: "failure", text: event.text });
        else this.inner.event(event);
        return;
      case "tool_start":
        return this.toolStart(event);
      case "tool_end":
        return this.toolEnd(event);
      default:
        this.inner.event(event);
    }
  }

  question(tool: string, detail: string): void {
    this.flushInjections();
    // Calls other than `task` run one at a time: the asking call is the newest one not started.
    const waiting = [...this.calls.keys()].filter((id) => !this.started.has(id) && !this.ended.has(id)).at(-1);
    if (waiting !== undefined && this.showLine(waiting)) return;
    this.inner.event({ type: "tool_start", id: "", name: tool, detail });
    this.announced = tool.toLowerCase();
  }

  interrupted(): void {
    this.inner.interrupted?.();
  }

  turnDone(): string[] {
    this.flushInjections();
    for (const callId of [...this.held.keys()]) if (this.ended.has(callId)) this.release(callId);
    return this.inner.turnDone?.() ?? [];
  }

  finish(result: SessionResult): void {
    this.flushInjections();
    for (const callId of [...this.held.keys()]) this.release(callId);
    this.inner.finish(result);
  }

  private toolStart(event: Extract<AgentEvent, { type: "tool_start" }>): void {
    // Printed already (its hooks' rows or its question) with the input that runs: not again.
    if (this.shown.get(event.id) !== event.detail && this.announced !== event.name.toLowerCase()) this.inner.event(event);
    this.shown.set(event.id, event.detail);
    this.announced = null;
    this.open = event.id;
    this.started.add(event.id);
    this.release(event.id);
  }

  private toolEnd(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    this.announced = null;
    // A call that never started (invalid arguments, a denial) sits under the line shown for it.
    if (!this.started.has(event.id)) this.showLine(event.id);
    this.inner.event(event);
    this.release(event.id);
    this.ended.add(event.id);
    if (this.open === event.id) this.open = null;
  }

  private print(lines: readonly string[]): void {
    for (const text of lines) this.inner.event({ type: "notice", kind: "info", text });
  }

  private release(callId: string): void {
    for (const notice of this.held.get(callId) ?? []) this.inner.event({ type: "notice", ...notice });
    this.held.delete(callId);
  }

  /** Prints the call's line (once); false when the call is not known yet. */
  private showLine(callId: string): boolean {
    if (this.shown.has(callId)) return true;
    const call = this.calls.get(callId);
    if (call === undefined) return false;
    this.inner.event({ type: "tool_start", id: callId, name: call.name, detail: call.detail });
    this.shown.set(callId, call.detail);
    this.release(callId);
    return true;
  }

  private rowsOf(record: SessionRecord): string[] {
    if (record.type === "hook_lifecycle") return this.settings.showInTui ? [lifecycleRow(record)] : [];
    if (record.type === "hook_context_injection") {
      this.injections += 1;
      return injectionRows(record, this.contents.contentsOf(this.injections - 1), this.settings);
    }
    // hook_diagnostic: failures are already shown by their D21 failure line.
    return [];
  }

  /**
   * A row or failure line of call `callId`: before its tool starts, live under its line; while the
   * tool runs (its post phase), held until its result line; after its end, where it occurs.
   */
  private forCall(callId: string, notice: HeldNotice): void {
    if (this.ended.has(callId) || (!this.started.has(callId) && this.showLine(callId))) this.inner.event({ type: "notice", ...notice });
    else this.held.set(callId, [...(this.held.get(callId) ?? []), notice]);
  }

  private flushInjections(): void {
    const pending = this.pendingInjections;
    this.pendingInjections = [];
    for (const record of pending) this.print(this.rowsOf(record));
  }
}
