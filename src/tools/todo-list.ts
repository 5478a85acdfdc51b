/**
 * The session's plan as data: the items, the list a session keeps (`todo_write` replaces it), how it
 * reads as text, and how a resumed session finds it again in a tool result's metadata.
 */
import { TODO_STATUSES } from "./schemas.ts";

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
