/**
 * `todo_write`: the session's plan. Each call replaces the whole list (as Claude Code's TodoWrite
 * does); the result text shows it, and its metadata carries it (`todos`, `counts`) so the UI can
 * draw it and hooks and the session file see it like any tool call. The list lives in the session
 * (one `TodoList` per AgentSession; a subagent has its own), so it is never read back from disk
 * except when a session is resumed.
 */
import type { ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { todoWriteInputSchema, type TodoWriteInput } from "./schemas.ts";
import { countTodos, formatTodos, type TodoItem, type TodoList } from "./todo-list.ts";
import { failure } from "./output.ts";

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
