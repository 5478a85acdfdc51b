/**
 * The environment block of the system prompt (docs/model-context.md): where the agent runs, what it
 * runs on, the model and permission mode, the git state (bounded), and which hooks are active, so
 * the model knows why a call may be denied. Git runs through the runtime's process wrapper with a
 * timeout, only inside a git work tree, with no repository-configured helpers (fsmonitor).
 */
import type { Runtime } from "../runtime/types.ts";
import { CappedSink, runInGroup } from "../runtime/run-group.ts";
import type { HookSpec } from "../hooks/types.ts";
import { dirnamePath, joinPath } from "../util/path-utils.ts";

/** Each git command's bound; git is skipped (not waited for) past it. */
export const GIT_TIMEOUT_MS = 3000;
export const GIT_STATUS_MAX_LINES = 30;
export const GIT_RECENT_COMMITS = 5;
export const HOOKS_LISTED_MAX = 20;
const GIT_OUTPUT_MAX_BYTES = 64 * 1024;

export interface EnvironmentFacts {
  readonly cwd: string;
  readonly projectRoot: string;
  readonly model: string;
  readonly provider: string;
  readonly permissionMode: string;
  readonly hooks: readonly HookSpec[];
}

export interface GitFacts {
  readonly branch: string;
  readonly status: readonly string[];
  /** Status lines left out past GIT_STATUS_MAX_LINES. */
  readonly statusMore: number;
  readonly commits: readonly string[];
}

const MODE_MEANING: Readonly<Record<string, string>> = {
  default: "reads run; edits, writes, bash and task ask first (with no one to ask, as in `agent run`, they are denied unless a rule or hook allows them)",
  "accept-edits": "reads and file edits run; bash and task ask first",
  readonly: "only reads run; write, edit, bash and task are denied",
  bypass: "every call runs unless a deny rule or a hook denies it",
};

/** The nearest git work tree at or above `cwd`: a `.git` file (worktree) or a `.git` directory with HEAD. */
export function gitWorkTree(runtime: Runtime, cwd: string): string | null {
  for (let dir = cwd; ; dir = dirnamePath(dir)) {
    const dotGit = joinPath(dir, ".git");
    const kind = runtime.fs.stat(dotGit)?.kind;
    if (kind === "file" || (kind === "dir" && runtime.fs.stat(joinPath(dotGit, "HEAD"))?.kind === "file")) return dir;
    if (dirnamePath(dir) === dir) return null;
  }
}

/** git's environment: only what it needs to find itself and the user's config; never prompts or takes locks. */
function gitEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };
  for (const key of ["PATH", "HOME", "USERPROFILE", "SystemRoot", "SYSTEMROOT", "XDG_CONFIG_HOME", "TMPDIR"]) {
    const value = env[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

async function git(runtime: Runtime, cwd: string, args: readonly string[], signal?: AbortSignal): Promise<string | null> {
  const stdout = new CappedSink(GIT_OUTPUT_MAX_BYTES, "truncate");
  const run = await runInGroup(runtime, {
    // A repository's own config may name programs git would run (core.fsmonitor): not here.
    argv: ["git", "-c", "core.fsmonitor=false", "--no-optional-locks", ...args],
    cwd,
    env: gitEnv(runtime.env()),
    stdin: null,
    timeoutMs: GIT_TIMEOUT_MS,
    stdout,
    stderr: new CappedSink(4096, "truncate"),
    ...(signal ? { signal } : {}),
  });
  if (run.stop !== "exit" || run.exit?.code !== 0) return null;
  return new TextDecoder().decode(stdout.bytes());
}

/** Branch, bounded status and recent commits; null outside a git work tree or when git is missing or slow. */
export async function gitFacts(runtime: Runtime, cwd: string, signal?: AbortSignal): Promise<GitFacts | null> {
  if (gitWorkTree(runtime, cwd) === null) return null;
  const [status, log] = await Promise.all([
    git(runtime, cwd, ["status", "--porcelain=v1", "--branch"], signal),
    git(runtime, cwd, ["log", "--oneline", "--no-decorate", `-n${GIT_RECENT_COMMITS}`], signal),
  ]);
  if (status === null) return null;
  const lines = status.split("\n").filter((line) => line !== "");
  const head = lines[0]?.startsWith("## ") ? (lines.shift() ?? "").slice(3) : "";
  const branch =
    head
      .replace(/^No commits yet on /, "")
      .split("...")[0]
      ?.trim() ?? "";
  return {
    branch: branch === "" ? "(unknown)" : branch,
    status: lines.slice(0, GIT_STATUS_MAX_LINES),
    statusMore: Math.max(0, lines.length - GIT_STATUS_MAX_LINES),
    commits: (log ?? "").split("\n").filter((line) => line !== ""),
  };
}

/**
 * Active hooks as events, tool matchers and scopes, counted; labels stay local (like every hook
 * record), the model only needs to know where a call may be stopped.
 */
function hookLines(hooks: readonly HookSpec[]): string[] {
  const active = hooks.filter((hook) => !hook.disabled);
  if (active.length === 0) return ["Hooks: none active."];
  const counts = new Map<string, number>();
  for (const hook of active) {
    const matcher = "matcher" in hook && typeof hook.matcher === "string" && hook.matcher !== "" ? ` on ${hook.matcher}` : "";
    const key = `${hook.event}${matcher} (${hook.scope})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const lines = [
    `Hooks: ${active.length} active. A hook may deny, change or add context to a tool call or prompt; a denial comes back as the tool result with the hook's reason, so adjust the call rather than repeating it.`,
  ];
  const entries = [...counts.entries()];
  for (const [key, count] of entries.slice(0, HOOKS_LISTED_MAX)) lines.push(`  - ${key}: ${count} hook${count === 1 ? "" : "s"}`);
  if (entries.length > HOOKS_LISTED_MAX) lines.push(`  - … and ${entries.length - HOOKS_LISTED_MAX} more`);
  return lines;
}

function gitLines(facts: GitFacts | null): string[] {
  if (facts === null) return ["Git: not a git repository (or git is unavailable)."];
  const lines = [`Git branch: ${facts.branch}`];
  if (facts.status.length === 0) lines.push("Git status: clean");
  else {
    lines.push("Git status (porcelain, at session start):", ...facts.status.map((line) => `  ${line}`));
    if (facts.statusMore > 0) lines.push(`  … and ${facts.statusMore} more`);
  }
  lines.push(facts.commits.length === 0 ? "Recent commits: none" : "Recent commits:", ...facts.commits.map((line) => `  ${line}`));
  return lines;
}

/** The `<environment>` block. `date` is the local calendar date (YYYY-MM-DD). */
export function environmentBlock(runtime: Runtime, facts: EnvironmentFacts, git: GitFacts | null, date: string): string {
  const env = runtime.env();
  const { os, arch } = runtime.platform;
  const release = runtime.platform.osRelease ?? "";
  const shell = os === "win32" ? (env.COMSPEC ?? "cmd.exe") : (env.SHELL ?? "/bin/sh");
  const lines = [
    `Working directory: ${facts.cwd}`,
    `Project root: ${facts.projectRoot}`,
    `Platform: ${os} ${arch}${release === "" ? "" : `, OS version ${release}`}`,
    `Shell: ${shell} (the bash tool runs each command with /bin/bash -c)`,
    `Date: ${date}`,
    `Model: ${facts.model} (provider ${facts.provider})`,
    `Permission mode: ${facts.permissionMode}: ${MODE_MEANING[facts.permissionMode] ?? ""}`,
    ...gitLines(git),
    ...hookLines(facts.hooks),
  ];
  return `<environment>\n${lines.join("\n")}\n</environment>`;
}

/** YYYY-MM-DD of `d` in local time. */
export function localDate(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
