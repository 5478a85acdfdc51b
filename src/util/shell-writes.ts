/**
 * The files a bash command visibly writes, read from its simple commands (shell-commands.ts): the
 * targets of its writing redirections and the write targets of the well-known commands that write
 * files (`cp`, `mv`, `install`, `ln`, `tee`, `sed -i`, `perl -i`, `touch`, `rm`, `rmdir`, `mkdir`,
 * `unlink`, `chmod`, `chown`, `chgrp`, `truncate`, `dd of=`, `curl -o`, `wget -O`, `find -delete`).
 * A `cd` or `pushd` moves where the later relative targets resolve. Nothing else is guessed: a
 * program that writes by itself (a script, `python -c`, `git config`) is not seen here.
 *
 * A target whose path cannot be read statically is reported as unread, with its text; it is
 * `chosen` when the command itself could have picked it: a command substitution, arguments `xargs` reads from its
 * input, or a variable while the command sets variables (an assignment, `read`, `export`, `source`,
 * a loop: anything that leaves the analysis incomplete). A variable the command cannot have set
 * (`> "$TMPDIR/out"`: the user's environment) is not a target the command chose.
 */
import { commandName, stripWrappers, type CommandAnalysis, type SimpleCommand } from "./shell-commands.ts";

/** The directory names whose contents become code or configuration (`.git/hooks`, `.agent/`, `.claude/`). */
export const PROTECTED_DIR_NAMES: readonly string[] = [".git", ".agent", ".claude"];

export interface WriteTarget {
  /** The path as written (`~` already replaced by `home`), relative to `base` unless absolute. */
  readonly path: string;
  /** The directory a `cd` moved to, relative to the call's cwd unless absolute; "" for the cwd itself. */
  readonly base: string;
  /** True when the path holds a glob (`*`, `?`, `[`): a pattern, not one file. */
  readonly glob: boolean;
  /** The command writes anywhere below the path too (`rm -r`, `chmod -R`, `find … -delete`). */
  readonly tree?: boolean;
  /** A recursive copy or a move: these sources' contents land below the path (relative like `path`). */
  readonly from?: readonly string[];
}

export interface UnreadTarget {
  /** As written, after a `cd` the gate could not follow prefixed with its directory (`$/.agent/config.toml`). */
  readonly text: string;
  /** True when the command itself could have chosen where it goes (see the module comment). */
  readonly chosen: boolean;
}

export interface CommandWrites {
  readonly targets: readonly WriteTarget[];
  /** Targets the reader cannot resolve (`$D/config`, `xargs rm`). */
  readonly unread: readonly UnreadTarget[];
}

interface Arg {
  readonly text: string;
  readonly expands: boolean;
}

/** Options that take the next word as their value, per command (a value is never a target). */
const VALUE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  cp: ["-S", "--suffix", "-t", "--target-directory"],
  mv: ["-S", "--suffix", "-t", "--target-directory"],
  install: ["-S", "--suffix", "-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group"],
  ln: ["-S", "--suffix", "-t", "--target-directory"],
  touch: ["-d", "--date", "-t", "-r", "--reference"],
  mkdir: ["-m", "--mode"],
  truncate: ["-s", "--size", "-r", "--reference"],
  sed: ["-e", "--expression", "-f", "--file", "-l", "--line-length"],
  perl: ["-e", "-E", "-M", "-I"],
  chmod: ["--reference"],
  chown: ["--reference", "--from"],
  chgrp: ["--reference"],
  tee: [],
  rm: [],
  rmdir: [],
  unlink: [],
  shred: ["-n", "--iterations", "-s", "--size"],
};

/** The words after the options: `--` ends them, value options take their value along. */
function operands(name: string, args: readonly Arg[]): { operands: Arg[]; values: Map<string, Arg> } {
  const takesValue = VALUE_OPTIONS[name] ?? [];
  const out: Arg[] = [];
  const values = new Map<string, Arg>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg;
    if (arg.text === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
    if (!arg.text.startsWith("-") || arg.text === "-") {
      out.push(arg);
      continue;
    }
    const eq = arg.text.indexOf("=");
    const option = eq > 0 ? arg.text.slice(0, eq) : arg.text;
    if (takesValue.includes(option)) {
      if (eq > 0) values.set(option, { text: arg.text.slice(eq + 1), expands: arg.expands });
      else if (i + 1 < args.length) values.set(option, args[++i] as Arg);
      continue;
    }
    // A short value option with its value attached (`-tDIR`).
    const short = takesValue.find((o) => o.length === 2 && !arg.text.startsWith("--") && arg.text.startsWith(o) && arg.text.length > 2);
    if (short !== undefined) values.set(short, { text: arg.text.slice(2), expands: arg.expands });
  }
  return { operands: out, values };
}

function hasShortFlag(args: readonly Arg[], flag: string): boolean {
  return args.some((arg) => /^-[^-]/.test(arg.text) && arg.text.slice(1).includes(flag));
}

/** `cp -l`/`cp -s`: links to the sources, so a later write through a link lands in a source. */
function linksSources(name: string, args: readonly Arg[]): boolean {
  if (name === "mv" || name === "ln") return true;
  return name === "cp" && (hasShortFlag(args, "l") || hasShortFlag(args, "s") || args.some((arg) => arg.text === "--link" || arg.text === "--symbolic-link"));
}

/**
 * cp, mv, install, ln: the `-t` directory, else the last operand (ln with one operand: its name in
 * the cwd). `mv` also writes its sources (they go away), and a link (`ln`, `cp -l/-s`) reaches
 * them: `ln -s .git l && echo x > l/config` writes `.git/config`, so they count as well.
 */
function destination(name: string, args: readonly Arg[]): Arg[] {
  const { operands: ops, values } = operands(name, args);
  const target = values.get("-t") ?? values.get("--target-directory");
  if (linksSources(name, args)) return target !== undefined ? [target, ...ops] : ops;
  if (target !== undefined) return [target];
  if (name === "install" && (hasShortFlag(args, "d") || args.some((arg) => arg.text === "--directory"))) return ops;
  if (ops.length === 0) return [];
  if (ops.length === 1) {
    const only = ops[0] as Arg;
    return name === "ln" ? [{ text: only.text.replace(/\/+$/, "").split("/").pop() ?? only.text, expands: only.expands }] : [];
  }
  return [ops[ops.length - 1] as Arg];
}

/** `sed -i` and `perl -i`: the files after the script (the first operand, unless `-e`/`-f` gave it). */
function inPlaceFiles(name: string, args: readonly Arg[]): Arg[] {
  const inPlace = args.some((arg) => /^-[^-]*i/.test(arg.text) || arg.text.startsWith("--in-place"));
  if (!inPlace) return [];
  const { operands: ops, values } = operands(name, args);
  const scriptGiven = name === "sed" ? values.has("-e") || values.has("--expression") || values.has("-f") || values.has("--file") : true;
  return scriptGiven ? ops : ops.slice(1);
}

/** `find START… -delete` writes under its start paths, and so does an `-exec` of a writing command. */
function findTargets(args: readonly Arg[]): Arg[] {
  const starts: Arg[] = [];
  for (const arg of args) {
    if (arg.text.startsWith("-") || arg.text === "(" || arg.text === "!") break;
    starts.push(arg);
  }
  const writes: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]?.text ?? "";
    if (word === "-delete") writes.push(...(starts.length > 0 ? starts : [{ text: ".", expands: false }]));
    if (/^-(exec|execdir|ok|okdir)$/.test(word) && WRITERS.has(commandName(args[i + 1]?.text ?? ""))) {
      writes.push(...(starts.length > 0 ? starts : [{ text: ".", expands: false }]));
    }
    if (/^-(fprint|fprint0|fprintf|fls)$/.test(word) && args[i + 1] !== undefined) writes.push(args[i + 1] as Arg);
  }
  return writes;
}

const WRITERS: ReadonlySet<string> = new Set([
  "cp",
  "mv",
  "install",
  "ln",
  "tee",
  "sed",
  "perl",
  "touch",
  "rm",
  "rmdir",
  "mkdir",
  "unlink",
  "shred",
  "chmod",
  "chown",
  "chgrp",
  "truncate",
  "dd",
  "curl",
  "wget",
]);

/** A write target found among the arguments, with how far below it the command writes. */
interface Found extends Arg {
  readonly tree?: boolean;
  readonly from?: readonly Arg[];
}

const RECURSIVE: ReadonlySet<string> = new Set(["rm", "chmod", "chown", "chgrp", "cp", "mv", "install"]);

function recursive(name: string, args: readonly Arg[]): boolean {
  if (name === "mv") return true;
  if (!RECURSIVE.has(name)) return false;
  return args.some((arg) => arg.text === "--recursive" || arg.text === "--archive" || /^-[^-]*[rRa]/.test(arg.text));
}

/** The write targets of one command, marked `tree` (rm -r, chmod -R) or `from` (cp -r, mv) where it writes below them. */
function commandTargets(name: string, args: readonly Arg[]): Found[] {
  const found: Found[] = argumentTargets(name, args);
  if (!recursive(name, args)) return name === "find" ? found.map((arg) => ({ ...arg, tree: true })) : found;
  if (name === "cp" || name === "mv" || name === "install") {
    const sources = operands(name, args).operands.filter((arg) => !found.includes(arg));
    return found.map((arg) => ({ ...arg, from: sources }));
  }
  return found.map((arg) => ({ ...arg, tree: true }));
}

/** The write targets among one command's arguments, by what the command is known to do. */
function argumentTargets(name: string, args: readonly Arg[]): Arg[] {
  switch (name) {
    case "cp":
    case "mv":
    case "install":
    case "ln":
      return destination(name, args);
    case "sed":
    case "perl":
      return inPlaceFiles(name, args);
    case "chmod":
    case "chown":
    case "chgrp": {
      const { operands: ops, values } = operands(name, args);
      // The mode or owner comes first unless `--reference` gave it or, for chmod, a word that looks
      // like an option is the mode (`chmod -x f`, `chmod -w,g+r f`).
      const modeAsOption = name === "chmod" && args.some((arg) => /^-[rwxXst]/.test(arg.text) && /^-[rwxXstugoa,=+0-7-]+$/.test(arg.text));
      return values.has("--reference") || modeAsOption ? ops : ops.slice(1);
    }
    case "dd":
      return args.filter((arg) => arg.text.startsWith("of=")).map((arg) => ({ text: arg.text.slice(3), expands: arg.expands }));
    case "curl":
      return args.flatMap((arg, i) =>
        arg.text === "-o" || arg.text === "--output"
          ? args[i + 1]
            ? [args[i + 1] as Arg]
            : []
          : arg.text.startsWith("--output=")
            ? [{ text: arg.text.slice(9), expands: arg.expands }]
            : [],
      );
    case "wget":
      return args.flatMap((arg, i) =>
        arg.text === "-O" || arg.text === "--output-document"
          ? args[i + 1]
            ? [args[i + 1] as Arg]
            : []
          : arg.text.startsWith("--output-document=")
            ? [{ text: arg.text.slice(18), expands: arg.expands }]
            : [],
      );
    case "find":
      return findTargets(args);
    default:
      return WRITERS.has(name) ? operands(name, args).operands : [];
  }
}

/** Whether `text` still holds a parameter expansion or a command substitution (not only a glob or `~`). */
function unresolvable(text: string): boolean {
  return text.includes("$") || text.includes("`");
}

function substitutes(text: string): boolean {
  return text.includes("$(…)") || text.includes("`…`");
}

/** Commands that set shell variables (besides `NAME=value`). */
const SETTERS: ReadonlySet<string> = new Set([
  "export",
  "declare",
  "typeset",
  "local",
  "readonly",
  "read",
  "mapfile",
  "readarray",
  "let",
  "source",
  ".",
  "printf",
  "getopts",
]);

/** True when the command line may set a variable that a later word expands. */
function setsVariables(analysis: CommandAnalysis): boolean {
  if (!analysis.complete) return true;
  return analysis.commands.some((command) => {
    if (command.assignments.length > 0) return true;
    const name = commandName(stripWrappers(command.words)[0] ?? "");
    return SETTERS.has(name) && (name !== "printf" || command.words.includes("-v"));
  });
}

function argsOf(command: SimpleCommand): { name: string; args: Arg[] } {
  const words = stripWrappers(command.words);
  const offset = command.words.length - words.length;
  const args = words.slice(1).map((text, i) => ({ text, expands: command.expanding[offset + 1 + i] ?? false }));
  return { name: commandName(words[0] ?? ""), args };
}

/** Tracks `cd`/`pushd` through the list: the directory later relative targets resolve against, or null when unknown. */
function nextBase(base: string | null, name: string, args: readonly Arg[], home: string): string | null {
  if (name !== "cd" && name !== "pushd") return base;
  const to = args.find((arg) => !arg.text.startsWith("-") || arg.text === "-");
  if (to === undefined) return home;
  if (to.text === "-" || (to.expands && !/^~(\/|$)/.test(to.text)) || unresolvable(to.text)) return null;
  const path = to.text.replace(/^~(?=\/|$)/, home);
  if (path.startsWith("/")) return path;
  if (base === null) return null;
  return base === "" ? path : `${base}/${path}`;
}

function writeTarget(arg: Found, text: string, base: string, home: string): WriteTarget {
  const from = (arg.from ?? []).filter((source) => !unresolvable(source.text)).map((source) => source.text.replace(/^~(?=\/|$)/, home));
  return { path: text, base, glob: arg.expands && /[*?[]/.test(text), ...(arg.tree ? { tree: true } : {}), ...(from.length > 0 ? { from } : {}) };
}

/** The files the analysed command visibly writes, in reading order. `home` replaces a leading `~`. */
export function commandWrites(analysis: CommandAnalysis, home: string): CommandWrites {
  const chosen = setsVariables(analysis);
  const targets: WriteTarget[] = [];
  const unread: UnreadTarget[] = [];
  // The cwd after the `cd`s so far: "" the call's own, null one the gate cannot follow (`lost` says how).
  let base: string | null = "";
  let lost = { text: "", chosen: false };
  for (const command of analysis.commands) {
    const { name, args } = argsOf(command);
    const found: Found[] = [...command.targets.filter((t) => t.write), ...commandTargets(name, args)];
    if (command.via === "xargs" && WRITERS.has(name)) unread.push({ text: `xargs ${command.words.join(" ")}`, chosen: true });
    for (const arg of found) {
      const text = arg.text.replace(/^~(?=\/|$)/, home);
      if (arg.expands && unresolvable(text)) unread.push({ text, chosen: chosen || substitutes(text) });
      else if (base === null && !text.startsWith("/")) unread.push({ text: `${lost.text}/${text}`, chosen: lost.chosen });
      else targets.push(writeTarget(arg, text, base ?? "", home));
    }
    const next = nextBase(base, name, args, home);
    if (next === null && base !== null) {
      const to = args.find((arg) => !arg.text.startsWith("-") || arg.text === "-")?.text ?? "-";
      lost = { text: to, chosen: chosen || substitutes(to) || to === "-" };
    }
    base = next;
  }
  return { targets, unread };
}
