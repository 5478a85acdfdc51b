/**
 * Prompt history, one file per project under AGENT_HOME (`history/<hash of the project root>.jsonl`,
 * one JSON string a line, private to the user: prompts can hold anything). Up and Down walk it; the
 * newest HISTORY_LIMIT entries are kept. A file that cannot be read or written costs the history,
 * never the session.
 */
import type { Runtime } from "../runtime/types.ts";

const HISTORY_LIMIT = 500;

export interface PromptHistory {
  readonly entries: readonly string[];
  add(text: string): void;
}

export function historyFile(runtime: Runtime, home: string, projectRoot: string): string {
  return `${home}/history/${runtime.sha256Hex(projectRoot).slice(0, 16)}.jsonl`;
}

export function openHistory(runtime: Runtime, home: string, projectRoot: string): PromptHistory {
  const path = historyFile(runtime, home, projectRoot);
  const entries: string[] = [];
  for (const line of (runtime.fs.readText(path) ?? "").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") entries.push(value);
    } catch {
      // A torn last line from a crash: skip it.
    }
  }
  let appended = 0;
  return {
    entries: entries.slice(-HISTORY_LIMIT),
    add(text) {
      if (text.trim() === "" || entries.at(-1) === text) return;
      entries.push(text);
      try {
        runtime.fs.mkdir(`${home}/history`, { recursive: true, mode: 0o700 });
        appended += 1;
        // The first write of a session rewrites the file trimmed (and private); later ones append.
        if (entries.length > HISTORY_LIMIT * 2 || appended === 1) {
          entries.splice(0, Math.max(0, entries.length - HISTORY_LIMIT));
          runtime.fs.writeText(path, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
        } else runtime.fs.appendText(path, `${JSON.stringify(text)}\n`);
      } catch {
        // No history file (read-only home): the session goes on.
      }
    },
  };
}
