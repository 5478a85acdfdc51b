/**
 * `todo_write`: the session's plan. Each call replaces the whole list (as Claude Code's TodoWrite
 * does); the result text shows it, and its metadata carries it (`todos`, `counts`) so the UI can
 * draw it and hooks and the session file see it like any tool call. The list lives in the session
 * (one `TodoList` per AgentSession; a subagent has its own), so it is never read back from disk
 * except when a session is resumed.
 */
import type { ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { todoWriteInputSchema, type TodoWriteInput, TODO_STATUSES } from "./schemas.ts";
import { failure } from "./output.ts";

export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
  readonly activeForm?: string;
  readonly priority?: "high" | "medium" | "low";
}

export class TodoList {
  #items: readonly TodoItem[];

  constructor(items: readonly TodoItem[] = []) {
    this.#items = items;
  }

  get items(): readonly TodoItem[] {
    return this.#items;
  }

  replace(items: readonly TodoItem[]): readonly TodoItem[] {
    const old = this.#items;
    this.#items = items;
    return old;
  }
}

const MARK: Readonly<Record<TodoStatus, string>> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

/** The plan as the model and a plain terminal read it: one line per item, `[x]` done, `[>]` in progress. */
export function formatTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return "Plan cleared (no items).";
  const done = items.filter((item) => item.status === "completed").length;
  const lines = items.map((item) => `${MARK[item.status]} ${item.id}. ${item.content}`);
  return [`Plan (${done}/${items.length} completed):`, ...lines].join("\n");
}

export function countTodos(items: readonly TodoItem[]): Record<TodoStatus, number> {
  const counts: Record<TodoStatus, number> = { pending: 0, in_progress: 0, completed: 0 };
  for (const item of items) counts[item.status]++;
  return counts;
}

/** The plan a tool result's metadata holds (for resume and the UI); undefined when it holds none. */
export function todosOfMetadata(metadata: unknown): TodoItem[] | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const todos = (metadata as { todos?: unknown }).todos;
  if (!Array.isArray(todos)) return undefined;
  const items: TodoItem[] = [];
  for (const entry of todos) {
    if (typeof entry !== "object" || entry === null) return undefined;
    const { id, content, status } = entry as Record<string, unknown>;
    if (typeof id !== "string" || typeof content !== "string" || !TODO_STATUSES.includes(status as TodoStatus)) return undefined;
    items.push({ id, content, status: status as TodoStatus });
  }
  return items;
}

function writeTodos(input: TodoWriteInput, list: TodoList | undefined): ToolResult {
  if (list === undefined) return failure("todo_write is not available here (no session plan)");
  const items: TodoItem[] = input.todos.map((todo, index) => ({
    id: todo.id ?? String(index + 1),
    content: todo.content,
    status: todo.status,
    ...(todo.activeForm !== undefined ? { activeForm: todo.activeForm } : {}),
    ...(todo.priority !== undefined ? { priority: todo.priority } : {}),
  }));
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) return failure(`todos: id ${JSON.stringify(item.id)} is used twice; give every item its own id (or none)`);
    seen.add(item.id);
  }
  const oldTodos = list.replace(items);
  return {
    success: true,
    content: formatTodos(items),
    metadata: { todos: items.map(({ id, content, status }) => ({ id, content, status })), counts: countTodos(items) },
    details: { tool: "todo_write", oldTodos, newTodos: items },
  };
}

export const todoWriteTool = defineTool({
  name: "todo_write",
  description:
    "Keep a short plan for a multi-step task: send the whole list every time (content, status pending|in_progress|completed, optional id). Mark one item in_progress before starting it and completed as soon as it is done. Skip it for one-step tasks.",
  schema: todoWriteInputSchema,
  run: (input, ctx) => writeTodos(input, ctx.todos),
});
