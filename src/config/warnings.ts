/**
 * Load-warning helpers shared by every config loader, and the one-line rendering used by
 * `agent hooks list`, `agent hooks validate` and `AGENT_DEBUG=1`.
 */
import type { LoadWarning } from "../hooks/types.ts";
import { escapeControls } from "../util/escape.ts";
import { relativeInside } from "../util/path-utils.ts";

/** Collects warnings in discovery order. */
export class WarningSink {
  readonly items: LoadWarning[] = [];

  error(file: string, field: string, message: string): void {
    this.items.push({ severity: "error", file, field, message });
  }

  warning(file: string, field: string, message: string): void {
    this.items.push({ severity: "warning", file, field, message });
  }

  /** A syntax error: its message starts `<line>:<col>: ` so rendering glues it to the file name. */
  syntax(file: string, line: number, column: number, message: string): void {
    this.items.push({ severity: "error", file, field: "", message: `${line}:${column}: ${message}` });
  }
}

/**
 * Display form of a path: relative to the project root when inside it (`.agent/settings.json`),
 * `~/…` when inside the user's home, else absolute.
 */
export function displayPath(path: string, places: { projectRoot?: string; userHome?: string }): string {
  if (places.projectRoot) {
    const rel = relativeInside(path, places.projectRoot);
    if (rel !== undefined && rel !== ".") return rel;
  }
  if (places.userHome && places.userHome !== "/") {
    const rel = relativeInside(path, places.userHome);
    if (rel !== undefined && rel !== ".") return `~/${rel}`;
  }
  return path;
}

/**
 * `<file>: <field>: <message>`; a syntax error renders as `<file>:<line>:<col>: <message>` (CLI-15).
 */
export function formatWarning(warning: LoadWarning, places: { projectRoot?: string; userHome?: string } = {}): string {
  const file = displayPath(warning.file, places);
  // Messages quote config text (values, keys, file names): escaped so it cannot rewrite the line.
  if (warning.field === "" && /^\d+:\d+: /.test(warning.message)) return escapeControls(`${file}:${warning.message}`);
  return escapeControls(warning.field === "" ? `${file}: ${warning.message}` : `${file}: ${warning.field}: ${warning.message}`);
}
