/**
 * Plugin commands as slash commands: `/name args` (or `/plugin:name args`) becomes the command
 * file's body, front matter removed, with `$ARGUMENTS` replaced by everything after the name, `$1`…`$9`
 * by its words, and `${CLAUDE_PLUGIN_ROOT}` by the plugin's root. A body that never says
 * `$ARGUMENTS` gets the arguments appended as `ARGUMENTS: …`, as Claude Code does. The file's
 * `` !`…` `` lines are kept apart (CommandPart) for the session to run through its tool-call policy
 * before the prompt is sent (src/agent/command-prompt.ts), with the front matter's `allowed-tools`
 * and `model`. A skill is a command too (`/name` or `/plugin:name`): its SKILL.md body is the prompt.
 * Used by `agent run /cmd args`; the interactive session calls `expandSlashCommand` too.
 */
import type { FileSystem } from "../runtime/types.ts";
import { expandPluginRoot } from "../config/plugins.ts";
import type { PluginCatalog, PluginCommand } from "./components.ts";
import { frontMatter, listItems } from "./components.ts";

export type SlashExpansion =
  | { readonly kind: "none" }
  | { readonly kind: "expanded"; readonly prompt: string; readonly command: PluginCommand; readonly prepared: PreparedCommand }
  | { readonly kind: "error"; readonly message: string };

/**
 * A command ready to run in a session (src/agent/command-prompt.ts): its prompt with the arguments
 * filled in, where `` !`…` `` lines still run and `@path` references are still read, and what its
 * front matter grants for that turn.
 */
export interface PreparedCommand {
  /** `/name` as typed. */
  readonly name: string;
  /** The command file (named in every refusal, with the line). */
  readonly path: string;
  /** The prompt: text and the `!` lines to run, arguments filled in. */
  readonly parts: readonly CommandPart[];
  /** `allowed-tools:` entries as written (`Bash(git status:*)`, `Read`). */
  readonly allowedTools: readonly string[];
  /** `model:`, or undefined. */
  readonly model: string | undefined;
}

/** The command `/name` selects: an exact `plugin:name`, else the only command of that name. */
export function findCommand(catalog: PluginCatalog, name: string): PluginCommand | PluginCommand[] | undefined {
  const qualified = catalog.commands.find((command) => `${command.plugin}:${command.name}` === name);
  if (qualified !== undefined) return qualified;
  const plain = catalog.commands.filter((command) => command.name === name);
  return plain.length === 1 ? plain[0] : plain.length > 1 ? plain : undefined;
}

/** A skill run as `/name` or `/plugin:name` (Claude Code's skill commands): its SKILL.md is the prompt. */
function skillAsCommand(catalog: PluginCatalog, name: string): PluginCommand | undefined {
  const skills = catalog.skills.filter((skill) => `${skill.plugin}:${skill.name}` === name || skill.name === name);
  const skill = skills.length === 1 ? skills[0] : skills.find((item) => `${item.plugin}:${item.name}` === name);
  const plugin = skill === undefined ? undefined : catalog.plugins.find((item) => item.name === skill.plugin);
  if (skill === undefined || plugin === undefined) return undefined;
  return { name: skill.name, plugin: skill.plugin, pluginRoot: plugin.root, path: skill.path, description: skill.description, argumentHint: "" };
}

/** Words of the argument text, with "double" and 'single' quotes grouping. */
function argumentWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

/** `` !`command` `` on one line, as Claude Code writes them in a command file. */
export const COMMAND_LINE = /!`([^`\n]+)`/g;

/**
 * A command's prompt in order: text, and the `!` lines its file wrote (with the arguments filled in
 * and their line in the file). A `` !`…` `` that only the arguments brought is text: what runs is
 * what the command's author wrote.
 */
export type CommandPart = { readonly text: string } | { readonly run: string; readonly line: number };

function substitute(text: string, args: string, words: readonly string[]): string {
  return text.replace(/\$ARGUMENTS\b/g, args).replace(/\$([1-9])(?![0-9])/g, (_, index: string) => words[Number(index) - 1] ?? "");
}

/** The parts of a command body for `args`; `bodyLine` is the file's line number of the body's first line. */
export function commandParts(body: string, args: string, pluginRoot: string, bodyLine = 1): CommandPart[] {
  const words = argumentWords(args);
  const raw = expandPluginRoot(body, pluginRoot);
  const parts: CommandPart[] = [];
  let last = 0;
  for (const match of raw.matchAll(COMMAND_LINE)) {
    parts.push({ text: substitute(raw.slice(last, match.index), args, words) });
    parts.push({ run: substitute(match[1] ?? "", args, words), line: bodyLine + (raw.slice(0, match.index).match(/\n/g)?.length ?? 0) });
    last = match.index + match[0].length;
  }
  parts.push({ text: substitute(raw.slice(last), args, words) });
  // Trimmed like the prompt as a whole: leading space of the first text, trailing of the last.
  const first = parts[0];
  if (first !== undefined && "text" in first) parts[0] = { text: first.text.trimStart() };
  const end = parts[parts.length - 1];
  if (end !== undefined && "text" in end) parts[parts.length - 1] = { text: end.text.trimEnd() };
  if (!/\$ARGUMENTS\b/.test(body) && args.trim() !== "") parts.push({ text: `\n\nARGUMENTS: ${args.trim()}` });
  return parts.filter((part) => !("text" in part) || part.text !== "");
}

/** The parts as one text, the `!` lines written as they were. */
export function partsText(parts: readonly CommandPart[]): string {
  return parts.map((part) => ("text" in part ? part.text : `!\`${part.run}\``)).join("");
}

/** The prompt of a command file for `args`. */
export function commandPrompt(body: string, args: string, pluginRoot: string): string {
  return partsText(commandParts(body, args, pluginRoot));
}

/**
 * `text` as a plugin slash command. `none` when it does not start with `/name` of a loaded plugin
 * command (a prompt like "/usr/bin/x is broken" stays a prompt); `error` when the name is ambiguous
 * or its file cannot be read.
 */
export function expandSlashCommand(fs: FileSystem, catalog: PluginCatalog, text: string): SlashExpansion {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9._:-]*)(?:[ \t\n]+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return { kind: "none" };
  const found = findCommand(catalog, match[1]) ?? skillAsCommand(catalog, match[1]);
  if (found === undefined) return { kind: "none" };
  if (Array.isArray(found)) {
    return {
      kind: "error",
      message: `/${match[1]} is a command of several plugins (${found.map((command) => command.plugin).join(", ")}); say which: ${found.map((command) => `/${command.plugin}:${command.name}`).join(" or ")}`,
    };
  }
  let fileText: string | undefined;
  try {
    fileText = fs.readText(found.path);
  } catch {
    fileText = undefined;
  }
  if (fileText === undefined) return { kind: "error", message: `/${match[1]}: cannot read ${found.path}` };
  const { fields, body } = frontMatter(fileText);
  const parts = commandParts(body, match[2] ?? "", found.pluginRoot, bodyLine(fileText, body));
  const prompt = partsText(parts);
  const model = fields.model?.trim();
  const prepared: PreparedCommand = {
    name: `/${match[1]}`,
    path: found.path,
    parts,
    allowedTools: listItems(fields["allowed-tools"] ?? fields.allowedTools ?? ""),
    model: model === undefined || model === "" || model === "inherit" ? undefined : model,
  };
  return { kind: "expanded", prompt, command: found, prepared };
}

/** The file's line number of the body's first line (after the front matter). */
function bodyLine(fileText: string, body: string): number {
  const lines = fileText
    .replace(/^\uFEFF/, "")
    .replace(/\r\n/g, "\n")
    .split("\n").length;
  return lines - body.split("\n").length + 1;
}

/**
 * One line per loaded command and skill for a help listing: `/plugin:name ARGUMENT-HINT  description`
 * (front matter `argument-hint` and `description`, as Claude Code shows them). Plugin text: the
 * caller escapes control characters before it reaches a terminal.
 */
export function commandHelpLines(catalog: PluginCatalog): string[] {
  const line = (name: string, hint: string, description: string): string => {
    const head = `/${name}${hint === "" ? "" : ` ${hint}`}`;
    return `  ${head.padEnd(28)} ${description.replace(/\s+/g, " ").trim()}`.trimEnd();
  };
  return [
    ...catalog.commands.map((command) => line(`${command.plugin}:${command.name}`, command.argumentHint, command.description)),
    ...catalog.skills.map((skill) => line(`${skill.plugin}:${skill.name}`, "", skill.description)),
  ];
}
