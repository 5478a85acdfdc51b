/**
 * `.gitignore` rules for `grep` and `glob`, as git applies them inside the workspace: the
 * `.gitignore` of every directory from the workspace root down to a file (a deeper file's rules win;
 * inside a file the last matching line wins, `!` re-includes), below them `.git/info/exclude` of the
 * workspace root. Files above the workspace root and the user's global excludes file are not read,
 * so what is searched never depends on files outside the project. A directory that is ignored is not
 * entered, so nothing under it can be re-included (as in git). Pattern matching is the `ignore`
 * package (the matcher eslint and many others use), loaded on the first `.gitignore` found.
 */
import type { FileSystem } from "../runtime/types.ts";
import { dirnamePath, isInside } from "../util/path-utils.ts";

interface Matcher {
  test(path: string): { ignored: boolean; unignored: boolean };
}

type IgnoreFactory = () => { add(patterns: string): Matcher & { add(patterns: string): unknown } };

let factory: Promise<IgnoreFactory> | undefined;

/** The `ignore` module, imported once and only when some directory has ignore rules. */
function loadFactory(): Promise<IgnoreFactory> {
  factory ??= import("ignore").then((module) => module.default as unknown as IgnoreFactory);
  return factory;
}

interface Level {
  /** Absolute directory the patterns are relative to. */
  readonly dir: string;
  readonly matcher: Matcher;
}

/** The rules in force while walking one directory; `enter` gives its child's. Immutable. */
export class IgnoreRules {
  private constructor(
    private readonly fs: FileSystem,
    /** Shallowest first. */
    private readonly levels: readonly Level[],
  ) {}

  /**
   * The rules for a walk starting at `dir`: the exclude file and every `.gitignore` from
   * `workspaceRoot` down to `dir` (inclusive). `dir` outside the workspace: no rules.
   */
  static async at(fs: FileSystem, workspaceRoot: string, dir: string): Promise<IgnoreRules> {
    let rules = new IgnoreRules(fs, []);
    if (!isInside(dir, workspaceRoot)) return rules;
    rules = await rules.withFile(workspaceRoot, `${workspaceRoot}/.git/info/exclude`);
    const chain: string[] = [];
    for (let at = dir; ; at = dirnamePath(at)) {
      chain.unshift(at);
      if (at === workspaceRoot || dirnamePath(at) === at) break;
    }
    for (const level of chain) rules = await rules.enter(level);
    return rules;
  }

  /** The rules inside `dir` (a directory being entered): these plus its own `.gitignore`, if any. */
  async enter(dir: string): Promise<IgnoreRules> {
    return this.withFile(dir, dir === "/" ? "/.gitignore" : `${dir}/.gitignore`);
  }

  private async withFile(dir: string, file: string): Promise<IgnoreRules> {
    if (this.fs.stat(file)?.kind !== "file") return this;
    const text = this.fs.readText(file);
    if (text === undefined || !/^\s*[^#\s]/m.test(text)) return this;
    const create = await loadFactory();
    return new IgnoreRules(this.fs, [...this.levels, { dir, matcher: create().add(text) }]);
  }

  /** Is the entry at absolute `path` ignored? Deeper levels decide first; no opinion: not ignored. */
  ignores(path: string, isDir: boolean): boolean {
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const level = this.levels[i] as Level;
      // Walk paths are built as `${dir}/${name}`, so a prefix test is exact here.
      const prefix = level.dir === "/" ? "/" : `${level.dir}/`;
      if (!path.startsWith(prefix) || path.length === prefix.length) continue;
      const relative = path.slice(prefix.length);
      const verdict = level.matcher.test(isDir ? `${relative}/` : relative);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  get empty(): boolean {
    return this.levels.length === 0;
  }
}
