/**
 * `agent hooks import --from claude|gemini|codex [--user] [--dry-run]`: reads the
 * other agent's hook config (project files, or with `--user` the user's), translates it
 * (src/config/import-hooks.ts) and appends the groups to `hooks.lifecycle` of our `settings.json`
 * (`.agent/settings.json`, or `$AGENT_HOME/settings.json` with `--user`), skipping groups already
 * there. Prints what it imported and, one line each, what it could not translate. `--dry-run`
 * prints the resulting settings.json instead of writing it. Project hooks written this way run only
 * after `agent hooks trust`, like any other.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { locateConfig } from "../../config/paths.ts";
import { parseJson, parseToml } from "../../config/parse.ts";
import { isRecord } from "../../util/records.ts";
import { dirnamePath, joinPath } from "../../util/path-utils.ts";
import { IMPORT_SOURCES, translateHooks, type ImportNote, type ImportSource } from "../../config/import-hooks.ts";
import { canonicalJson } from "../../trust/trust.ts";

export interface HooksImportOptions {
  readonly cwd: string;
  readonly from: string | undefined;
  readonly user: boolean;
  readonly dryRun: boolean;
}

interface SourceFile {
  readonly path: string;
  readonly display: string;
  readonly format: "json" | "toml";
}

function sourceFiles(source: ImportSource, options: { user: boolean; env: Readonly<Record<string, string>>; home: string; projectRoot: string }): SourceFile[] {
  const dir = (name: string): { base: string; display: string } => {
    if (!options.user) return { base: joinPath(options.projectRoot, `.${name}`), display: `.${name}` };
    const override = name === "claude" ? options.env.CLAUDE_CONFIG_DIR : name === "codex" ? options.env.CODEX_HOME : undefined;
    return override?.trim() ? { base: override.trim(), display: override.trim() } : { base: joinPath(options.home, `.${name}`), display: `~/.${name}` };
  };
  const { base, display } = dir(source);
  const file = (name: string, format: "json" | "toml"): SourceFile => ({ path: joinPath(base, name), display: `${display}/${name}`, format });
  switch (source) {
    case "claude":
      return options.user ? [file("settings.json", "json")] : [file("settings.json", "json"), file("settings.local.json", "json")];
    case "gemini":
      return [file("settings.json", "json")];
    case "codex":
      return [file("config.toml", "toml"), file("hooks.json", "json")];
  }
}

function readDocument(runtime: Runtime, file: SourceFile): Record<string, unknown> | undefined {
  const text = runtime.fs.readText(file.path);
  if (text === undefined) return undefined;
  const parsed = file.format === "toml" ? parseToml(text) : parseJson(text);
  if (!parsed.ok)
    throw new AgentError("config", `${file.path}:${parsed.line}:${parsed.column}: ${parsed.message}`, {
      fix: "fix the file, then import again; nothing was written",
    });
  if (!isRecord(parsed.value)) throw new AgentError("config", `${file.path}: not an object`, { fix: "nothing was written" });
  return parsed.value;
}

export async function runHooksImport(runtime: Runtime, io: CliIO, options: HooksImportOptions): Promise<number> {
  const source = IMPORT_SOURCES.find((name) => name === options.from);
  if (source === undefined) {
    // A missing option is bad usage (exit 2); a value that names nothing exits 1, as `hooks init nope` does.
    const fix = `agent hooks import --from ${IMPORT_SOURCES.join("|")} [--user] [--dry-run]`;
    if (options.from === undefined) throw new AgentError("usage", "missing --from", { fix });
    throw new AgentError("config", `unknown --from "${options.from}"`, { fix });
  }
  const env = runtime.env();
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd: options.cwd });
  const home = env.HOME || runtime.platform.homedir;
  const files = sourceFiles(source, { user: options.user, env, home, projectRoot: location.projectRoot });
  const target = options.user ? joinPath(location.agentHome, "settings.json") : joinPath(location.projectRoot, ".agent/settings.json");
  const targetDisplay = options.user ? "~/.agent/settings.json" : ".agent/settings.json";

  // Read the target first: a broken settings.json stops the import before anything is merged.
  const existingText = runtime.fs.readText(target);
  const settings: Record<string, unknown> = {};
  if (existingText !== undefined) {
    const existing = parseJson(existingText);
    if (!existing.ok)
      throw new AgentError("config", `${target}:${existing.line}:${existing.column}: ${existing.message}`, { fix: "fix it first; nothing was written" });
    if (!isRecord(existing.value)) throw new AgentError("config", `${target}: not an object`, { fix: "nothing was written" });
    Object.assign(settings, existing.value);
  }
  const hooks = isRecord(settings.hooks) ? { ...settings.hooks } : {};
  if (settings.hooks !== undefined && !isRecord(settings.hooks))
    throw new AgentError("config", `${target}: hooks: not an object`, { fix: "nothing was written" });
  const lifecycle = isRecord(hooks.lifecycle) ? { ...hooks.lifecycle } : {};

  const read: string[] = [];
  const notes: ImportNote[] = [];
  let imported = 0;
  let skipped = 0;
  for (const file of files) {
    const document = readDocument(runtime, file);
    if (document === undefined) continue;
    read.push(file.display);
    const result = translateHooks(source, file.display, document);
    notes.push(...result.notes);
    for (const { event, group } of result.groups) {
      const current = lifecycle[event];
      const list: unknown[] = Array.isArray(current) ? [...current] : [];
      if (list.some((entry) => canonicalJson(entry) === canonicalJson(group))) {
        skipped += 1;
        continue;
      }
      list.push(group);
      lifecycle[event] = list;
      imported += group.hooks.length;
    }
  }
  if (read.length === 0) {
    throw new AgentError("config", `no ${source} config found (looked for ${files.map((file) => file.display).join(", ")})`, {
      fix: options.user ? "drop --user to import the project's files" : "run it in the project, or add --user for your own files",
    });
  }
  const next = { ...settings, hooks: { ...hooks, lifecycle } };
  const text = `${JSON.stringify(next, null, 2)}\n`;
  if (options.dryRun) io.out(text);
  else if (imported > 0) {
    runtime.fs.mkdir(dirnamePath(target), { recursive: true });
    runtime.fs.writeText(target, text);
  }
  const summary = `${options.dryRun ? "would import" : "imported"} ${imported} hook command${imported === 1 ? "" : "s"} from ${read.join(", ")} into ${targetDisplay}`;
  const lines = [skipped > 0 ? `${summary} (${skipped} group${skipped === 1 ? "" : "s"} already there)` : summary];
  if (notes.length > 0) {
    lines.push("not translated or changed:");
    for (const item of notes) lines.push(`  ${item.file}: ${item.field}: ${item.message}`);
  }
  if (imported > 0 && !options.dryRun && !options.user)
    lines.push("next: review with `agent hooks list`, then `agent hooks trust` — project hooks never run before the project is trusted");
  const report = `${lines.join("\n")}\n`;
  if (options.dryRun) io.err(report);
  else io.out(report);
  return 0;
}
