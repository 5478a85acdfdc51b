/**
 * `CLAUDE_ENV_FILE` / `AGENT_ENV_FILE`: a session_start hook may append
 * `export NAME=value` lines to the file; the agent reads them once the event is over and sets them
 * in every later `bash` call and project hook of the session, never a user hook (children inherit,
 * resume restores them).
 * Claude Code `source`s the file in a shell; we never run it as code. We parse a strict subset:
 *
 *   [export ]NAME=VALUE      NAME: [A-Za-z_][A-Za-z0-9_]*
 *   VALUE: a run of plain characters, 'single-quoted' (literal) and "double-quoted" segments;
 *          in double quotes only \" \\ \$ \` escape; outside single quotes `$NAME` and `${NAME}`
 *          expand to the variable's value in the (already stripped, D18) child env as it stands,
 *          so `export PATH="$HOME/bin:$PATH"` works and no credential can be expanded; any other
 *          `$` form and every backtick are refused (no command substitution, no arithmetic).
 *
 * Blank lines and `#` comments are skipped; every other line is refused with a warning. Names that
 * may never come from a hook are refused too: credentials (D18, by name or value shape, and the
 * provider key variables), shell start-up names (BASH_ENV, ENV, BASH_FUNC_*), loader names
 * (LD_*, DYLD_*), every name the agent injects (AGENT_*, CLAUDE_*, VT_*, PHI_* dialect names) and anything starting with AGENT_.
 */
import { INJECTED_ENV_NAMES, isCredentialEnv } from "./env.ts";

/** Both names a session_start hook finds the file under. */
export const ENV_FILE_VARS = ["CLAUDE_ENV_FILE", "AGENT_ENV_FILE"] as const;
/** Bounds: a session's persisted variables (names and values) and the file read back. */
export const ENV_FILE_MAX_BYTES = 64 * 1024;
export const SESSION_ENV_MAX_VARS = 256;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Unquoted characters: no whitespace, quotes, `$`, backtick, backslash or shell operators. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./~^!?\-[\]{}]$/;
const INJECTED: ReadonlySet<string> = new Set(INJECTED_ENV_NAMES);

export interface EnvFileParse {
  readonly vars: Record<string, string>;
  /** One line each, naming the file's line number and the fix. */
  readonly warnings: string[];
}

/** Why `name=value` may not be set from an env file, or null when it may. */
export function refusedEnvName(name: string, value: string, providerKeyVars: ReadonlySet<string>): string | null {
  if (!NAME.test(name)) return "not a variable name";
  if (name.startsWith("AGENT_") || INJECTED.has(name)) return "the agent sets this name itself";
  if (name === "BASH_ENV" || name === "ENV" || name.startsWith("BASH_FUNC_")) return "shell start-up variables are never passed on";
  // The dynamic loader's variables would inject code into every later hook and bash call.
  if (name.startsWith("LD_") || name.startsWith("DYLD_")) return "dynamic loader variables are never passed on";
  if (isCredentialEnv(name, value, providerKeyVars)) return "credentials are stripped from every child and cannot be set here";
  return null;
}

/** The value of `NAME=` after the `=`, or an error; see the grammar above. */
function parseValue(text: string, lookup: (name: string) => string): { ok: true; value: string } | { ok: false; error: string } {
  let out = "";
  let at = 0;
  /** `$NAME` / `${NAME}` at `at`: the expansion and the length consumed, or null for any other `$` form. */
  const expand = (): { text: string; length: number } | null => {
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(text.slice(at));
    const bare = braced ?? /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at));
    const name = bare?.[1];
    return bare && name !== undefined ? { text: lookup(name), length: bare[0].length } : null;
  };
  const NO_EXPANSION = "only $NAME and ${NAME} expand; quote a literal $ with '...'";
  while (at < text.length) {
    const ch = text.charAt(at);
    if (ch === "'") {
      const end = text.indexOf("'", at + 1);
      if (end < 0) return { ok: false, error: "unterminated single quote" };
      out += text.slice(at + 1, end);
      at = end + 1;
    } else if (ch === '"') {
      at += 1;
      let closed = false;
      while (at < text.length) {
        const c = text.charAt(at);
        if (c === '"') {
          closed = true;
          at += 1;
          break;
        }
        if (c === "\\") {
          const next = text.charAt(at + 1);
          if (next === '"' || next === "\\" || next === "$" || next === "`") {
            out += next;
            at += 2;
            continue;
          }
          out += c;
          at += 1;
          continue;
        }
        if (c === "`") return { ok: false, error: "command substitution (`) is not supported" };
        if (c === "$") {
          const expanded = expand();
          if (expanded === null) return { ok: false, error: NO_EXPANSION };
          out += expanded.text;
          at += expanded.length;
          continue;
        }
        out += c;
        at += 1;
      }
      if (!closed) return { ok: false, error: "unterminated double quote" };
    } else if (PLAIN.test(ch)) {
      out += ch;
      at += 1;
    } else if (ch === "#" && at > 0) {
      // `#` inside a plain word is literal in the shell too.
      out += ch;
      at += 1;
    } else if (ch === " " || ch === "\t") {
      // Trailing whitespace, optionally followed by a comment, ends the value; anything else is a second word.
      const rest = text.slice(at).trimStart();
      if (rest === "" || rest.startsWith("#")) return { ok: true, value: out };
      return { ok: false, error: "more than one word after = (quote the value)" };
    } else if (ch === "$") {
      const expanded = expand();
      if (expanded === null) return { ok: false, error: NO_EXPANSION };
      out += expanded.text;
      at += expanded.length;
    } else if (ch === "`") {
      return { ok: false, error: "command substitution (`) is not supported" };
    } else {
      return { ok: false, error: `character ${JSON.stringify(ch)} needs quoting` };
    }
  }
  return { ok: true, value: out };
}

/** Parses the env file's text (see the grammar above). `label` names the file in warnings. */
export function parseEnvFile(
  text: string,
  options: { readonly label: string; readonly providerKeyVars: ReadonlySet<string>; readonly env: Readonly<Record<string, string>> },
): EnvFileParse {
  const vars: Record<string, string> = {};
  const warnings: string[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `${options.label}:${index + 1}`;
    const body = line.startsWith("export ") ? line.slice("export ".length).trimStart() : line;
    const eq = body.indexOf("=");
    if (eq <= 0) {
      warnings.push(`${where}: ignored: not an \`export NAME=value\` line`);
      return;
    }
    const name = body.slice(0, eq);
    // Earlier lines of the file count, as they would in a shell.
    const value = parseValue(body.slice(eq + 1), (ref) => vars[ref] ?? options.env[ref] ?? "");
    if (!value.ok) {
      warnings.push(`${where}: ignored ${NAME.test(name) ? name : "line"}: ${value.error}`);
      return;
    }
    const refused = refusedEnvName(name, value.value, options.providerKeyVars);
    if (refused !== null) {
      warnings.push(`${where}: ignored ${NAME.test(name) ? name : "line"}: ${refused}`);
      return;
    }
    if (!(name in vars) && Object.keys(vars).length >= SESSION_ENV_MAX_VARS) {
      warnings.push(`${where}: ignored ${name}: at most ${SESSION_ENV_MAX_VARS} variables`);
      return;
    }
    vars[name] = value.value;
  });
  return { vars, warnings };
}

/** `vars` without what `refusedEnvName` refuses (a session file read back is outside data too). */
export function allowedSessionEnv(vars: Readonly<Record<string, string>>, providerKeyVars: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars)) if (refusedEnvName(name, value, providerKeyVars) === null) out[name] = value;
  return out;
}
