/**
 * Reading shell command strings just enough to name the files they run: for the trust digest
 * (SEC-32: every word naming an existing file inside the project, after expanding the project-dir
 * variables and removing quotes) and for `agent hooks validate` (CLI-14: missing or non-executable
 * targets, interpreters not on PATH). Never executes anything; anything dynamic is left alone.
 */
import { isInside, normalizePath, resolvePath } from "../config/path-utils.ts";
import type { FileSystem } from "../runtime/types.ts";

const PROJECT_VARS = new Set(["AGENT_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "VT_PROJECT_DIR"]);
const OPERATORS = new Set([";", "&", "|", "(", ")", "<", ">"]);

export interface CommandToken {
  readonly kind: "word" | "op";
  /** The word after quote removal and project-dir expansion (op: the operator character). */
  readonly text: string;
  /** True when the word holds something we cannot resolve statically (`$OTHER`, `~`, globs, backticks). */
  readonly dynamic: boolean;
}

/** Splits a command into words and operators the way `/bin/sh` would for these purposes. */
export function tokenizeCommand(command: string, projectDir: string): CommandToken[] {
  const tokens: CommandToken[] = [];
  let word = "";
  let inWord = false;
  let dynamic = false;
  const flush = (): void => {
    if (inWord) tokens.push({ kind: "word", text: word, dynamic });
    word = "";
    inWord = false;
    dynamic = false;
  };
  /** Reads `$NAME` or `${NAME}` at `i` (pointing at `$`); returns the index after it. */
  const variable = (i: number): number => {
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(command.slice(i));
    const bare = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(command.slice(i));
    const match = braced ?? bare;
    if (match && PROJECT_VARS.has(match[1] ?? "")) {
      word += projectDir;
      return i + match[0].length;
    }
    dynamic = true;
    word += "$";
    return i + 1;
  };
  let i = 0;
  while (i < command.length) {
    const ch = command[i] ?? "";
    if (/\s/.test(ch)) {
      flush();
      i++;
    } else if (OPERATORS.has(ch)) {
      flush();
      tokens.push({ kind: "op", text: ch, dynamic: false });
      i++;
    } else if (ch === "'") {
      inWord = true;
      const end = command.indexOf("'", i + 1);
      const stop = end < 0 ? command.length : end;
      word += command.slice(i + 1, stop);
      i = stop + 1;
    } else if (ch === '"') {
      inWord = true;
      i++;
      while (i < command.length && command[i] !== '"') {
        const inner = command[i] ?? "";
        if (inner === "\\" && i + 1 < command.length && '"\\$`'.includes(command[i + 1] ?? "")) {
          word += command[i + 1];
          i += 2;
        } else if (inner === "$") i = variable(i);
        else {
          if (inner === "`") dynamic = true;
          word += inner;
          i++;
        }
      }
      i++;
    } else if (ch === "\\") {
      inWord = true;
      word += command[i + 1] ?? "";
      i += 2;
    } else if (ch === "$") {
      inWord = true;
      i = variable(i);
    } else {
      if (ch === "`" || "*?[".includes(ch) || (ch === "~" && !inWord)) dynamic = true;
      inWord = true;
      word += ch;
      i++;
    }
  }
  flush();
  return tokens;
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
 * outside the project (issue 9 item 5). Outputs are left out as in `referencedFiles`.
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

/** Every absolute path a non-output word (or the part after an `=`) could name, in order. */
function namedPaths(command: string, root: string, cwd: string): string[] {
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
    if (token.dynamic || token.text === "") continue;
    const pieces = [token.text, ...token.text.split("=").slice(1)].filter((piece) => piece !== "");
    for (const piece of pieces) {
      const bases = piece.startsWith("/") ? [""] : [cwd, root];
      for (const base of bases) out.push(base === "" ? normalizePath(piece) : resolvePath(base, piece));
    }
  }
  return out;
}

const BUILTINS = new Set([
  ":", ".", "source", "true", "false", "echo", "printf", "test", "[", "[[", "cd", "exit", "export", "read", "set", "unset",
  "eval", "trap", "wait", "kill", "pwd", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
  "esac", "{", "}", "!", "return", "shift", "type", "ulimit", "umask", "alias", "local", "declare", "let",
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
