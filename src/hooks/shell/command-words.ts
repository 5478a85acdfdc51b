/**
 * Reading shell command strings just enough to name the files they run: for the trust digest
 * (SEC-32: every word naming an existing file inside the project, after expanding the project-dir
 * variables and removing quotes) and for `agent hooks validate` (CLI-14: missing or non-executable
 * targets, interpreters not on PATH). Never executes anything; anything dynamic is left alone.
 */
import { isInside, normalizePath, resolvePath } from "../../util/path-utils.ts";
import type { FileSystem } from "../../runtime/types.ts";
import { lexShell, type WordPart } from "../../util/shell-words.ts";

const PROJECT_VARS = new Set(["AGENT_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "VT_PROJECT_DIR"]);

export interface CommandToken {
  readonly kind: "word" | "op";
  /** The word after quote removal and project-dir expansion (op: the operator character). */
  readonly text: string;
  /** True when the word holds something we cannot resolve statically (`$OTHER`, `~`, globs, backticks). */
  readonly dynamic: boolean;
}

const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/y;

/**
 * The text of one part where bash expands (`bare` or `double`): project-dir variables become
 * `projectDir`; any other `$`, a backtick, and in bare text a glob character or a leading `~` make
 * the word dynamic.
 */
function expandPart(part: WordPart, projectDir: string, wordStart: boolean): { text: string; dynamic: boolean } {
  const text = part.text;
  let out = "";
  let dynamic = false;
  for (let i = 0; i < text.length; ) {
    const ch = text[i] ?? "";
    if (ch === "$") {
      VARIABLE.lastIndex = i;
      const match = VARIABLE.exec(text);
      const name = match?.[1] ?? match?.[2];
      if (match && name !== undefined && PROJECT_VARS.has(name)) {
        out += projectDir;
        i += match[0].length;
        continue;
      }
      dynamic = true;
    } else if (ch === "`") dynamic = true;
    else if (part.quoting === "bare" && ("*?[".includes(ch) || (ch === "~" && wordStart && i === 0))) dynamic = true;
    out += ch;
    i++;
  }
  return { text: out, dynamic };
}

/** Splits a command into words and operators, quoted as bash quotes it (src/util/shell-words.ts). */
export function tokenizeCommand(command: string, projectDir: string): CommandToken[] {
  return lexShell(command).map((token): CommandToken => {
    if (token.kind === "op") return { kind: "op", text: token.text, dynamic: false };
    let text = "";
    let dynamic = false;
    token.parts.forEach((part, index) => {
      if (part.quoting !== "bare" && part.quoting !== "double") {
        text += part.text;
        return;
      }
      const expanded = expandPart(part, projectDir, index === 0);
      text += expanded.text;
      dynamic ||= expanded.dynamic;
    });
    return { kind: "word", text, dynamic };
  });
}

/**
 * Programs whose operands are only written, never run or read as code. Their operands, like the
 * target of an output redirection, are outputs of the hook (a log, a canary, a lock file): pinning
 * them would make a trusted project untrusted again by merely running it (SEC-30, SEC-31).
 */
const WRITE_ONLY_PROGRAMS = new Set(["touch", "mkdir", "rm", "rmdir", "tee", "truncate"]);

/**
 * Absolute paths inside `projectDir` that the command's words name (relative words resolve
 * against `cwd`, and against `projectDir` too), except outputs: the word after `>`/`>>`/`>&`/`&>`
 * and the operands of WRITE_ONLY_PROGRAMS. With `fs`, only existing regular files are kept;
 * without it, every candidate inside the project is returned. Order: first mention.
 */
export function referencedFiles(command: string, projectDir: string, cwd: string, fs?: FileSystem): string[] {
  const root = normalizePath(projectDir);
  const out: string[] = [];
  for (const candidate of namedPaths(command, root, cwd)) {
    if (!isInside(candidate, root) || candidate === root || out.includes(candidate)) continue;
    if (fs && fs.stat(candidate)?.kind !== "file") continue;
    out.push(candidate);
  }
  return out;
}

/**
 * Existing files outside `projectDir` that the command's words run or name (an absolute
 * `/opt/x.sh`, a `../tool.sh`): the trust digest cannot pin them, so the review lists them as
 * outside the project. Outputs are left out as in `referencedFiles`.
 */
export function outsideFiles(command: string, projectDir: string, cwd: string, fs: FileSystem): string[] {
  const root = normalizePath(projectDir);
  const out: string[] = [];
  for (const candidate of namedPaths(command, root, cwd)) {
    if (isInside(candidate, root) || out.includes(candidate)) continue;
    if (fs.stat(candidate)?.kind !== "file") continue;
    out.push(candidate);
  }
  return out;
}

/** How deep shell code inside a word (`bash -c "…"`) is read again; deeper nesting is not followed. */
const NESTED_DEPTH = 3;

/**
 * Every absolute path a non-output word (or the part after an `=`) could name, in order. A word
 * holding a space or a shell operator may be code for `sh -c`/`bash -c` (`bash -c "source x.sh"`):
 * it is read again as a command, so the files it names are pinned too. Reading
 * any such word this way only adds candidates; it can never drop one.
 */
function namedPaths(command: string, root: string, cwd: string, depth = 0): string[] {
  const out: string[] = [];
  let outputTarget = false;
  let segmentStart = true;
  let writeOnly = false;
  for (const token of tokenizeCommand(command, root)) {
    if (token.kind === "op") {
      // `>`, `>>`, `>&`, `>|` lead to an output target; `<` leaves the command going on.
      if (token.text === ">" || (outputTarget && (token.text === "&" || token.text === "|"))) outputTarget = true;
      else if (token.text !== "<") {
        outputTarget = false;
        segmentStart = true;
        writeOnly = false;
      }
      continue;
    }
    if (outputTarget) {
      outputTarget = false;
      continue;
    }
    if (segmentStart && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(token.text) && !PREFIXES.has(token.text)) {
      segmentStart = false;
      writeOnly = WRITE_ONLY_PROGRAMS.has(token.text.slice(token.text.lastIndexOf("/") + 1));
    } else if (writeOnly) continue;
    if (token.text === "") continue;
    // Checked before `dynamic`: in `bash -c 'x.sh "$1"'` the code is dynamic, its script is not.
    if (depth < NESTED_DEPTH && /[\s;&|()<>]/.test(token.text)) out.push(...namedPaths(token.text, root, cwd, depth + 1));
    if (token.dynamic) continue;
    const pieces = [token.text, ...token.text.split("=").slice(1)].filter((piece) => piece !== "");
    for (const piece of pieces) {
      const bases = piece.startsWith("/") ? [""] : [cwd, root];
      for (const base of bases) out.push(base === "" ? normalizePath(piece) : resolvePath(base, piece));
    }
  }
  return out;
}

const BUILTINS = new Set([
  ":",
  ".",
  "source",
  "true",
  "false",
  "echo",
  "printf",
  "test",
  "[",
  "[[",
  "cd",
  "exit",
  "export",
  "read",
  "set",
  "unset",
  "eval",
  "trap",
  "wait",
  "kill",
  "pwd",
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "{",
  "}",
  "!",
  "return",
  "shift",
  "type",
  "ulimit",
  "umask",
  "alias",
  "local",
  "declare",
  "let",
]);
const PREFIXES = new Set(["exec", "command", "nohup", "time"]);
const INTERPRETER = /^(python[0-9.]*|node|nodejs|deno|bun|bash|sh|zsh|dash|ksh|fish|ruby|perl|php|lua|Rscript|tsx|ts-node|pwsh|powershell(\.exe)?)$/;
const SCRIPT_EXTENSION = /\.(py|sh|bash|zsh|js|mjs|cjs|ts|mts|rb|pl|php|lua|ps1|R)$/;

function fileProblem(fs: FileSystem, path: string, needExecutable: boolean): string | undefined {
  const stat = fs.stat(path);
  if (stat === undefined) return `not found: ${path}`;
  if (stat.kind !== "file") return `not a file: ${path}`;
  if (needExecutable && !fs.isExecutable(path)) return `not executable: ${path} (chmod +x)`;
  return undefined;
}

/** Problems with a direct-exec `run` target (hook directories, D21 wording). */
export function checkRunTarget(fs: FileSystem, path: string): string | undefined {
  return fileProblem(fs, path, true);
}

/**
 * Static checks of a shell command's programs for `agent hooks validate` (CLI-14, TOOL-39): each
 * simple command's program (`not found` / `not a file` / `not executable (chmod +x)` for paths,
 * `interpreter <name> not found on PATH` for names) and an interpreter's script argument.
 */
export function checkCommandTargets(
  runtime: { fs: FileSystem; which(command: string, pathValue?: string): string | null },
  command: string,
  options: { projectDir: string; cwd: string; pathValue?: string },
): string[] {
  const problems: string[] = [];
  const tokens = tokenizeCommand(command, options.projectDir);
  let segment: CommandToken[] = [];
  const finish = (): void => {
    const words = segment;
    segment = [];
    let at = 0;
    while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]?.text ?? "")) at++;
    while (at < words.length && PREFIXES.has(words[at]?.text ?? "")) at++;
    const program = words[at];
    if (!program || program.dynamic || program.text === "") return;
    if (program.text.includes("/")) {
      const problem = fileProblem(runtime.fs, resolvePath(options.cwd, program.text), true);
      if (problem) problems.push(problem);
      return;
    }
    if (BUILTINS.has(program.text)) return;
    if (runtime.which(program.text, options.pathValue) === null) problems.push(`interpreter ${program.text} not found on PATH`);
    if (!INTERPRETER.test(program.text)) return;
    const script = words[at + 1];
    if (!script || script.dynamic || script.text.startsWith("-")) return;
    if (script.text.includes("/") || SCRIPT_EXTENSION.test(script.text)) {
      const problem = fileProblem(runtime.fs, resolvePath(options.cwd, script.text), false);
      if (problem) problems.push(problem);
    }
  };
  let skipNext = false;
  for (const token of tokens) {
    if (token.kind === "op") {
      // `>>`, `>&2`, `<&0`: still the same redirection.
      if (skipNext && (token.text === "&" || token.text === ">" || token.text === "<")) continue;
      if (token.text === "<" || token.text === ">") skipNext = true;
      else finish();
      continue;
    }
    if (skipNext) {
      skipNext = false;
      continue;
    }
    segment.push(token);
  }
  finish();
  return problems;
}
