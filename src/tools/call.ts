/**
 * The one normalised view of a tool call, made once per call (and again after a hook rewrites the
 * input) and used by everything that judges or runs it: the permission gate, the hooks' payloads,
 * `affected_paths` and the tool itself. A file tool's `file_path` is resolved as Claude Code resolves
 * it before its hooks see it (absolute against the cwd, `.` and `..` removed), so a guard that checks
 * `$CLAUDE_PROJECT_DIR/.git/` sees `<proj>/.git/x` for `<proj>/sub/../.git/x`; its real location
 * (symlinks followed) is kept beside it for the checks a symlink must not walk around. A bash
 * command is read into the simple commands bash would run (util/shell-commands.ts), and the files
 * they visibly write (redirections, `cp`/`tee`/`sed -i`/…: util/shell-writes.ts) become its write
 * paths, judged like a file tool's.
 */
import type { FileSystem } from "../runtime/types.ts";
import { basenamePath, dirnamePath, resolvePath } from "../util/path-utils.ts";
import { analyzeCommand, type CommandAnalysis } from "../util/shell-commands.ts";
import { commandWrites, PROTECTED_DIR_NAMES, type UnreadTarget } from "../util/shell-writes.ts";
import { isBuiltin, type ToolId, type ToolName } from "./names.ts";
import { parsePatch, patchPaths } from "./patch-parse.ts";

/** Where a call runs: paths resolve against `cwd`; `projectDir` anchors relative rule patterns. */
export interface CallPlace {
  readonly cwd: string;
  readonly projectDir: string;
  /** `$HOME`, for `~/` in rule patterns. */
  readonly home: string;
  /** `$AGENT_HOME`: the agent's own configuration, which no file tool may write. */
  readonly agentHome: string;
}

export interface CallPath {
  /** The field it came from (`file_path`). */
  readonly field: string;
  /** Absolute and lexically normalised, as hooks and the tool see it. */
  readonly path: string;
  /** The real location (symlinks on the way followed); undefined when a dangling link hides it. */
  readonly real: string | undefined;
  readonly access: "read" | "write";
  /** bash: a glob target (`.g?t/config`), a pattern rather than one file. */
  readonly glob?: boolean;
}

export interface NormalizedCall {
  readonly tool: ToolId;
  /** The input with its path fields resolved; what hooks receive and the tool runs with. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly paths: readonly CallPath[];
  /** bash: the simple commands of `command`. */
  readonly command?: CommandAnalysis;
  /** bash: write targets that cannot be resolved statically (`$D/config`, `xargs rm`), as written. */
  readonly unreadWrites?: readonly UnreadTarget[];
  readonly place: CallPlace;
}

/** The file path fields each built-in tool has, and whether it reads or writes through them. */
export const PATH_FIELDS: Partial<Readonly<Record<ToolName, { readonly field: string; readonly access: "read" | "write" }>>> = {
  read: { field: "file_path", access: "read" },
  write: { field: "file_path", access: "write" },
  edit: { field: "file_path", access: "write" },
  multi_edit: { field: "file_path", access: "write" },
};

/** Builds the normalised view of a validated input. Never throws. */
export function normalizeCall(fs: FileSystem, place: CallPlace, tool: ToolId, input: Readonly<Record<string, unknown>>): NormalizedCall {
  if (!isBuiltin(tool)) return { tool, input, paths: [], place };
  const spec = PATH_FIELDS[tool];
  const paths: CallPath[] = [];
  let resolvedInput = input;
  if (spec !== undefined) {
    const given = input[spec.field];
    if (typeof given === "string" && given.length > 0 && !given.includes("\0")) {
      const path = resolvePath(resolvePath("/", place.cwd), given);
      paths.push({ field: spec.field, path, real: realLocation(fs, path), access: spec.access });
      resolvedInput = { ...input, [spec.field]: path };
    }
  }
  // An apply_patch call writes every file its patch names (sources and move destinations).
  if (tool === "apply_patch" && typeof input.input === "string") {
    const parsed = parsePatch(input.input);
    const base = resolvePath("/", place.cwd);
    for (const given of parsed.ok ? patchPaths(parsed.ops) : []) {
      const path = resolvePath(base, given);
      paths.push({ field: "input", path, real: realLocation(fs, path), access: "write" });
    }
  }
  const command = tool === "bash" && typeof input.command === "string" ? analyzeCommand(input.command) : undefined;
  if (command === undefined) return { tool, input: resolvedInput, paths, place };
  const writes = commandWrites(command, place.home);
  const cwd = resolvePath("/", place.cwd);
  for (const target of writes.targets) {
    const base = resolvePath(cwd, target.base);
    const path = resolvePath(base, target.path);
    paths.push({ field: "command", path, real: realLocation(fs, path), access: "write", ...(target.glob ? { glob: true } : {}) });
    // Below the path: a protected directory there (`rm -r .`, `find . -exec sed -i …`), or one a
    // recursive copy or move brings along (`cp -r tpl/. .` with a `tpl/.git`) is written too.
    const holders = [...(target.tree ? [path] : []), ...(target.from ?? []).map((source) => resolvePath(base, source))];
    for (const holder of holders) {
      for (const name of PROTECTED_DIR_NAMES) {
        if (fs.lstat(`${holder}/${name}`) === undefined) continue;
        const below = `${path}/${name}`;
        paths.push({ field: "command", path: below, real: realLocation(fs, below), access: "write" });
      }
    }
  }
  return { tool, input: resolvedInput, paths, command, ...(writes.unread.length > 0 ? { unreadWrites: writes.unread } : {}), place };
}

/**
 * The real location of `path` (which may not exist yet): the real path of its longest existing
 * ancestor plus the rest; undefined when a dangling or looping symlink makes it unknowable.
 */
export function realLocation(fs: FileSystem, path: string): string | undefined {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    const real = fs.realpath(current);
    if (real !== undefined) return rest.length === 0 ? real : resolvePath(real, rest.join("/"));
    if (fs.lstat(current) !== undefined) return undefined;
    const parent = dirnamePath(current);
    if (parent === current) return undefined;
    rest.unshift(basenamePath(current));
    current = parent;
  }
}
