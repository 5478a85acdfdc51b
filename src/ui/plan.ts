/**
 * The plan (`todo_write`) as a checklist under its tool row, as the peers draw their todo lists:
 * ☐ pending, ◐ in progress (bold), ☑ completed (dim); without colour `[ ]`, `[>]`, `[x]`. The same
 * rows live (from the tool result's metadata, seen as the session file is written) and on resume
 * (from the recorded tool result).
 */
import type { TodoItem, TodoStatus } from "../tools/todo-list.ts";
import type { Style } from "./style.ts";

const GLYPH: Readonly<Record<TodoStatus, string>> = { pending: "☐", in_progress: "◐", completed: "☑" };
const ASCII: Readonly<Record<TodoStatus, string>> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };
const INDENT = "    ";

/** One row per item; `escape` makes the model's text safe for the terminal before it is styled. */
export function planRows(items: readonly TodoItem[], style: Style, escape: (text: string) => string): string[] {
  return items.map((item) => {
    const mark = (style.enabled ? GLYPH : ASCII)[item.status];
    const text = `${mark} ${escape(item.content.replace(/\s+/g, " ").trim())}`;
    if (item.status === "in_progress") return `${INDENT}${style.bold(text)}`;
    if (item.status === "completed") return `${INDENT}${style.dim(text)}`;
    return `${INDENT}${text}`;
  });
}
