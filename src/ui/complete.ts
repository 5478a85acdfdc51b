/**
 * Tab completion at the prompt: a slash command (and `/hooks reload`) at the start of the text, or
 * an `@path` of a project file anywhere in it. One candidate completes in place; several complete
 * to their common prefix and are listed. Paths are listed from the directory the word names,
 * never outside the project (no `..`, no absolute paths), hidden entries only when asked for.
 */
import type { FileSystem } from "../runtime/types.ts";

export const SLASH_COMMANDS: readonly { readonly name: string; readonly help: string }[] = [
  { name: "/help", help: "the commands and keys" },
  { name: "/hooks", help: "the loaded hooks and load warnings" },
  { name: "/hooks reload", help: "re-read hook configuration (a changed project asks for trust first)" },
  { name: "/trust", help: "review this project's hooks and trust them" },
  { name: "/model", help: "the provider and model of this session" },
  { name: "/permissions", help: "the permission mode and rules in force" },
  { name: "/mcp", help: "the MCP servers and their tools" },
  { name: "/resume", help: "/resume ID continues another session of this project" },
  { name: "/sessions", help: "this project's recent sessions" },
  { name: "/compact", help: "/compact [instructions] summarizes the conversation now" },
  { name: "/clear", help: "end this session and start a fresh one" },
  { name: "/cost", help: "the tokens this session used, when the provider reported them" },
  { name: "/expand", help: "the last collapsed tool output, whole (also Ctrl-O on an empty prompt)" },
  { name: "/exit", help: "quit (also Ctrl-D, or Ctrl-C twice at the prompt)" },
];

export interface Completion {
  /** The new text and cursor. */
  readonly text: string;
  readonly cursor: number;
  /** The candidates to list when more than one matched (empty when completed in place). */
  readonly choices: readonly string[];
}

const LIST_LIMIT = 40;

export function complete(fs: FileSystem, cwd: string, text: string, cursor: number): Completion | null {
  const before = text.slice(0, cursor);
  if (before.startsWith("/") && !before.includes("\n")) {
    const names = SLASH_COMMANDS.map((c) => c.name).filter((name) => name.startsWith(before));
    return finish(text, cursor, before.length, names, " ");
  }
  const at = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (at === null) return null;
  const word = at[1] ?? "";
  if (word.startsWith("/") || word.split("/").includes("..")) return null;
  const slash = word.lastIndexOf("/");
  const dir = word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  const entries = fs
    .readdir(dir === "" ? cwd : `${cwd}/${dir}`)
    .filter((name) => name.startsWith(base) && (base.startsWith(".") || !name.startsWith(".")))
    .map((name) => `${dir}${name}${fs.stat(`${cwd}/${dir}${name}`)?.kind === "dir" ? "/" : ""}`);
  return finish(text, cursor, word.length, entries, "");
}

/** Replaces the last `typed` characters before the cursor with the completion of `candidates`. */
function finish(text: string, cursor: number, typed: number, candidates: readonly string[], after: string): Completion | null {
  if (candidates.length === 0) return null;
  const start = cursor - typed;
  const only = candidates.length === 1 ? (candidates[0] ?? "") : null;
  const filled = only !== null ? only + (only.endsWith("/") ? "" : after) : commonPrefix(candidates);
  const next = text.slice(0, start) + filled + text.slice(cursor);
  const shown = candidates.slice(0, LIST_LIMIT);
  const more = candidates.length > LIST_LIMIT ? [`… ${candidates.length - LIST_LIMIT} more`] : [];
  return { text: next, cursor: start + filled.length, choices: only !== null ? [] : [...shown, ...more] };
}

function commonPrefix(values: readonly string[]): string {
  let prefix = values[0] ?? "";
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
