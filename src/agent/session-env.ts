/**
 * The variables a session carries for its children: what session_start hooks
 * appended to `CLAUDE_ENV_FILE` / `AGENT_ENV_FILE` (parsed by src/hooks/shell/env-file.ts), set on top of
 * the stripped env (D18) of every later `bash` call and project hook (user hooks spawn without
 * them). Each session_start gets a fresh
 * private directory (0700) with an empty file (0600); once its hooks are done the file is read,
 * merged and removed. The whole set is written as a `session_env` record, so `--resume` restores
 * it; compaction keeps it (it is not part of the conversation); subagents start with the parent's.
 */
import type { Runtime } from "../runtime/types.ts";
import type { SessionRecord } from "../session/records.ts";
import { joinPath } from "../util/path-utils.ts";
import { allowedSessionEnv, ENV_FILE_MAX_BYTES, parseEnvFile, SESSION_ENV_MAX_VARS } from "../hooks/shell/env-file.ts";

export interface EnvFileSlot {
  readonly path: string;
  readonly dir: string;
}

export class SessionEnv {
  #vars: Record<string, string>;
  readonly #providerKeyVars: ReadonlySet<string>;

  constructor(initial: Readonly<Record<string, string>>, providerKeyVars: readonly string[]) {
    this.#providerKeyVars = new Set(providerKeyVars);
    this.#vars = allowedSessionEnv(initial, this.#providerKeyVars);
  }

  /** The current set (a copy). */
  vars(): Record<string, string> {
    return { ...this.#vars };
  }

  /** A fresh private directory with an empty 0600 file, or the reason it could not be made. */
  openFile(runtime: Pick<Runtime, "fs" | "platform">): { ok: true; slot: EnvFileSlot } | { ok: false; error: string } {
    let dir: string | null = null;
    try {
      dir = runtime.fs.mkdtemp(joinPath(runtime.platform.tmpdir, "agent-env-"));
      // chmod after creation, so the umask cannot widen them.
      runtime.fs.chmod(dir, 0o700);
      const path = joinPath(dir, "env");
      runtime.fs.writeText(path, "", { mode: 0o600 });
      runtime.fs.chmod(path, 0o600);
      return { ok: true, slot: { path, dir } };
    } catch (error) {
      if (dir !== null) removeQuietly(runtime, dir);
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Reads what the hooks wrote, merges it and removes the directory. `base` is the child env the
   * lines expand against (stripped, plus this set). Returns the warnings and whether the set changed.
   */
  absorb(runtime: Pick<Runtime, "fs">, slot: EnvFileSlot, base: Readonly<Record<string, string>>): { changed: boolean; warnings: string[] } {
    const warnings: string[] = [];
    const stat = runtime.fs.lstat(slot.path);
    let text = "";
    if (stat === undefined) {
      // Removed by a hook: nothing to read.
    } else if (stat.kind !== "file") {
      warnings.push(`${slot.path}: ignored: not a regular file`);
    } else if (stat.size > ENV_FILE_MAX_BYTES) {
      warnings.push(`${slot.path}: ignored: ${stat.size} bytes, more than ${ENV_FILE_MAX_BYTES}`);
    } else {
      text = runtime.fs.readText(slot.path) ?? "";
      // An async session_start hook may still be appending: the bound holds for what was read, too.
      if (text.length > ENV_FILE_MAX_BYTES) {
        warnings.push(`${slot.path}: ignored: grew past ${ENV_FILE_MAX_BYTES} bytes while being read`);
        text = "";
      }
    }
    removeQuietly(runtime, slot.dir);
    const parsed = parseEnvFile(text, { label: "CLAUDE_ENV_FILE", providerKeyVars: this.#providerKeyVars, env: { ...base, ...this.#vars } });
    warnings.push(...parsed.warnings);
    let changed = false;
    for (const [name, value] of Object.entries(parsed.vars)) {
      if (this.#vars[name] === value) continue;
      if (!(name in this.#vars) && Object.keys(this.#vars).length >= SESSION_ENV_MAX_VARS) {
        warnings.push(`CLAUDE_ENV_FILE: ignored ${name}: a session keeps at most ${SESSION_ENV_MAX_VARS} variables`);
        continue;
      }
      this.#vars[name] = value;
      changed = true;
    }
    return { changed, warnings };
  }
}

/** The set of the last `session_env` record (resume), or none. */
export function sessionEnvOf(records: readonly SessionRecord[]): Record<string, string> {
  const last = records.findLast((record) => record.type === "session_env");
  return last?.type === "session_env" ? { ...last.env } : {};
}

function removeQuietly(runtime: Pick<Runtime, "fs">, dir: string): void {
  try {
    runtime.fs.rm(dir, { recursive: true });
  } catch {
    // best effort: a leftover private (0700) directory in tmp holds only what a hook wrote
  }
}
