/**
 * The permission question as a menu: allow once, allow always (the rule the gate suggests, for this
 * session or saved to the project), no, or no and tell the model what to do instead. An edit or write question shows the diff the
 * call would make. Everything taken from the call (command, path, file text) is escaped: a command
 * holding `\r` or ESC cannot redraw the question into a harmless-looking one.
 */
import type { FileSystem } from "../runtime/types.ts";
import type { PermissionAsk } from "../agent/types.ts";
import type { Choice } from "./prompt-io.ts";
import { escapeControls } from "../util/escape.ts";
import { resolvePath } from "../util/path-utils.ts";
import { diffRows } from "./diff.ts";

/** Larger files are not read for a question's diff. */
const DIFF_FILE_MAX_BYTES = 1_000_000;

export type QuestionAnswer = "once" | "always" | "always-project" | "always-user" | "deny" | "tell";

export function questionText(request: PermissionAsk): string {
  return `allow ${escapeControls(request.tool)}: ${escapeControls(request.detail)}?`;
}

export function questionChoices(request: PermissionAsk): Choice[] {
  const choices: Choice[] = [{ key: "y", label: "yes, once", value: "once" }];
  if (request.alwaysRule !== null) {
    const rule = escapeControls(request.alwaysRule);
    choices.push({ key: "a", label: `yes, always this session (${rule})`, value: "always" });
    choices.push({ key: "p", label: `yes, always in this project (${rule}, saved to .agent/settings.json)`, value: "always-project" });
    choices.push({ key: "u", label: `yes, always for me (${rule}, saved to ~/.agent/settings.json)`, value: "always-user" });
  }
  choices.push({ key: "n", label: "no", value: "deny" });
  choices.push({ key: "t", label: "no, and tell the model what to do instead", value: "tell" });
  return choices;
}

/** The diff rows of an edit or write question; [] for other tools or when the file cannot be read. */
export function questionDiff(fs: FileSystem, cwd: string, request: PermissionAsk): string[] {
  const input = request.input;
  if (input === undefined || (request.tool !== "edit" && request.tool !== "write")) return [];
  const filePath = input.file_path;
  if (typeof filePath !== "string") return [];
  const path = resolvePath(cwd, filePath);
  const stat = fs.stat(path);
  if (stat !== undefined && (stat.kind !== "file" || stat.size > DIFF_FILE_MAX_BYTES)) return [];
  const before = fs.readText(path) ?? "";
  let after: string;
  if (request.tool === "write") {
    if (typeof input.content !== "string") return [];
    after = input.content;
  } else {
    const { old_string: from, new_string: to } = input;
    if (typeof from !== "string" || typeof to !== "string" || from === "" || !before.includes(from)) return [];
    after = input.replace_all === true ? before.split(from).join(to) : before.replace(from, () => to);
  }
  return diffRows(before, after).map((row) => escapeControls(row));
}
