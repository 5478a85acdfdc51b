/**
 * What the gate guards beyond the user's rules. Writes that become code execution or configuration
 * (D28): a file tool, or a bash command's visible write (a redirection, `cp`, `tee`, `sed -i`, …:
 * util/shell-writes.ts), never writes inside `$AGENT_HOME` (the user's own config, hooks and trust),
 * and a write into `.git/` (hooks, `core.fsmonitor`), `.agent/` or `.claude/`, or a bash write whose
 * target cannot be read, asks in every mode unless an allow rule names that directory. And the read-only bash commands the gate allows without a
 * question (D27): a documented list, with the options that would write or run something excluded,
 * and only when the whole command was read and holds no redirection, substitution or assignment.
 */
import type { NormalizedCall } from "../tools/call.ts";
import { isInside } from "../util/path-utils.ts";
import { commandName, type SimpleCommand } from "../util/shell-commands.ts";
import { PROTECTED_DIR_NAMES } from "../util/shell-writes.ts";
import type { Rule } from "./rules.ts";

export const PROTECTED_DIRS: readonly string[] = PROTECTED_DIR_NAMES;

export type ProtectedWrite =
  | { readonly kind: "agent-home"; readonly reason: string }
  | { readonly kind: "protected-dir"; readonly dir: string; readonly reason: string; readonly namedBy: (rule: Rule) => boolean };

function components(path: string): string[] {
  return path.split(/[\\/]/).filter((part) => part.length > 0);
}

/** A glob component (`.g?t`, `.[a]gent`, `.c*`) that bash could expand to a protected name; `*` never matches a leading dot. */
function globReaches(part: string, dir: string): boolean {
  if (!part.startsWith(".")) return false;
  let source = "";
  for (let i = 0; i < part.length; i++) {
    const ch = part[i] ?? "";
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else if (ch === "[") {
      const end = part.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        source += `[${part
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  try {
    return new RegExp(`^${source}$`).test(dir);
  } catch {
    return true;
  }
}

function protectedDirOf(location: string, glob: boolean): string | undefined {
  for (const part of components(location)) {
    const dir = PROTECTED_DIRS.find((name) => name === part || (glob && globReaches(part, name)));
    if (dir !== undefined) return dir;
  }
  return undefined;
}

function whatWrites(call: NormalizedCall): string {
  return call.tool === "bash" ? "a bash write" : call.tool;
}

/** The first protected directory a write path passes through (its resolved or real location), if any. */
export function protectedWrite(call: NormalizedCall): ProtectedWrite | null {
  const writes = call.paths.filter((p) => p.access === "write");
  const home = call.place.agentHome;
  for (const p of writes) {
    const locations = p.real === undefined ? [p.path] : [p.path, p.real];
    if (locations.some((location) => isInside(location, home))) {
      return {
        kind: "agent-home",
        reason: `${call.tool} never writes inside $AGENT_HOME (${home}): the agent's own configuration, hooks and trust are changed by the user, not by a tool`,
      };
    }
  }
  for (const p of writes) {
    const locations = p.real === undefined ? [p.path] : [p.path, p.real];
    for (const location of locations) {
      const dir = protectedDirOf(location, p.glob === true);
      if (dir === undefined) continue;
      const shown = call.tool === "bash" ? ` (${location})` : "";
      return {
        kind: "protected-dir",
        dir,
        reason: `${whatWrites(call)} into ${dir}/${shown} needs approval in every permission mode (it holds configuration that can run code); an allow rule that names ${dir}/ permits it`,
        // A bash rule names it among the command's words (`bash(cp * .git/hooks/*)`).
        namedBy: (rule) => rule.pattern !== null && rule.pattern.split(/[\\/\s]+/).includes(dir),
      };
    }
  }
  // A target the gate cannot resolve counts when the command could have chosen it, or when what can
  // be read of it already names a protected directory (`"$HOME/.agent/x"`).
  const unread = (call.unreadWrites ?? []).filter((target) => target.chosen || protectedDirOf(target.text, true) !== undefined);
  if (unread.length > 0) {
    return {
      kind: "protected-dir",
      dir: "",
      reason: `a bash write to ${unread.map((target) => `\`${target.text}\``).join(", ")} needs approval in every permission mode: the gate cannot tell where it writes, and it could be inside .git/, .agent/ or .claude/`,
      namedBy: () => false,
    };
  }
  return null;
}

/** Options that make an otherwise read-only command write a file or run a program. */
const READ_ONLY_COMMANDS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ["ls", []],
  ["cat", []],
  ["echo", []],
  ["printf", ["-v"]],
  ["pwd", []],
  ["head", []],
  ["tail", []],
  ["wc", []],
  ["grep", []],
  ["egrep", []],
  ["fgrep", []],
  ["rg", ["--pre", "--pre-glob"]],
  ["find", ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]],
  ["which", []],
  ["whoami", []],
  ["id", []],
  ["date", ["-s", "--set"]],
  ["uname", []],
  ["file", []],
  ["stat", []],
  ["du", []],
  ["df", []],
  ["tree", ["-o"]],
  ["sort", ["-o", "--output", "--compress-program"]],
  ["cut", []],
  ["diff", []],
  ["basename", []],
  ["dirname", []],
  ["realpath", []],
  ["true", []],
  ["false", []],
]);

/** `git` subcommands that only read, with the options that would write or run something. */
const GIT_READ_ONLY: ReadonlySet<string> = new Set(["status", "diff", "log", "show", "rev-parse", "ls-files", "blame"]);
const GIT_FORBIDDEN: readonly string[] = ["--output", "--ext-diff", "--textconv", "-o"];

/** A word sets a forbidden option: `--output`, `--output=x`, `-o`, `-ofile` or bundled as in `-ro`. */
function hasOption(words: readonly string[], forbidden: readonly string[]): boolean {
  return words.slice(1).some((word) =>
    forbidden.some((option) => {
      if (word === option || word.startsWith(`${option}=`)) return true;
      const short = option.length === 2 && option.startsWith("-");
      return short && word.startsWith("-") && !word.startsWith("--") && word.slice(1).includes(option.slice(1));
    }),
  );
}

function readOnlyCommand(command: SimpleCommand): boolean {
  if (command.redirects || command.substitutes || command.assignments.length > 0) return false;
  const words = command.words;
  const first = words[0];
  // The command word as written: a path (`./ls`) may be anything the project ships.
  if (first === undefined || first.includes("/") || first !== commandName(first)) return false;
  if (first === "git") {
    const sub = words[1] ?? "";
    return GIT_READ_ONLY.has(sub) && !hasOption(words.slice(1), GIT_FORBIDDEN);
  }
  const forbidden = READ_ONLY_COMMANDS.get(first);
  return forbidden !== undefined && !hasOption(words, forbidden);
}

/** True when every simple command of a completely read bash call is on the read-only list. */
export function isReadOnlyBash(call: NormalizedCall): boolean {
  const analysis = call.command;
  if (analysis === undefined || !analysis.complete || analysis.commands.length === 0) return false;
  return analysis.commands.every(readOnlyCommand);
}

/** The documented list, for `docs/` and `agent config show`. */
export function readOnlyCommandNames(): string[] {
  return [...READ_ONLY_COMMANDS.keys(), ...[...GIT_READ_ONLY].map((sub) => `git ${sub}`)];
}
