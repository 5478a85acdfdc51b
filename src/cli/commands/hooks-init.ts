/**
 * `agent hooks init TEMPLATE`: installs one ready-made hook of hooks-examples/ (CLI-18). A hook
 * directory is copied to `.agent/hooks/NAME/`; a config hook gets its script in `.agent/scripts/`
 * and its snippet appended to `.agent/config.toml` (lifecycle groups) or merged into
 * `.agent/settings.json` (tool-call lists). In `$HOME`, or wherever the `.agent` found is
 * `$AGENT_HOME`, it installs a user hook under `$AGENT_HOME` instead, with absolute script paths.
 * Everything is checked before anything is written, so a refusal leaves every file as it was.
 * The templates are embedded (src/hooks/templates.ts), so the compiled binary needs no source tree.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { locateConfig } from "../../config/paths.ts";
import { parseJson, parseToml } from "../../config/parse.ts";
import { isRecord } from "../../util/records.ts";
import { preflight } from "../../hooks/shell/preflight.ts";
import { HOOK_TEMPLATES, type HookTemplate } from "../../hooks/templates.ts";

interface Place {
  readonly scope: "user" | "project";
  /** `$P/.agent` or `$AGENT_HOME`. */
  readonly base: string;
}

interface Write {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
}

/** The relative script path the examples' snippets use, for the project scope. */
const PROJECT_SCRIPTS = "$AGENT_PROJECT_DIR/.agent/scripts/";
const LIST_SCRIPTS = "./.agent/scripts/";

function placeFor(runtime: Runtime, cwd: string): Place {
  const env = runtime.env();
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd });
  const real = (path: string): string => runtime.fs.realpath(path) ?? path;
  const inHome = real(location.projectRoot) === real(location.userHome);
  if (!location.projectScope || inHome) return { scope: "user", base: location.agentHome };
  return { scope: "project", base: `${location.projectRoot}/.agent` };
}

function shellQuote(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

function snippetOf(template: HookTemplate): { name: string; content: string } {
  const file = template.files.find((f) => f.name === "config.toml" || f.name === "settings.json");
  if (file === undefined) throw new AgentError("runtime", "template has no config snippet");
  return file;
}

/** config.toml: the snippet appended, script paths made absolute for the user scope; the result must parse. */
function tomlWrite(runtime: Runtime, place: Place, snippet: string, scripts: readonly string[]): Write {
  const path = `${place.base}/config.toml`;
  let text = snippet;
  if (place.scope === "user") {
    for (const script of scripts)
      text = text.split(JSON.stringify(`${PROJECT_SCRIPTS}${script}`)).join(JSON.stringify(shellQuote(`${place.base}/scripts/${script}`)));
  }
  const existing = runtime.fs.readText(path) ?? "";
  if (existing !== "") {
    const before = parseToml(existing);
    if (!before.ok)
      throw new AgentError("config", `${path}:${before.line}:${before.column}: could not parse TOML: ${before.message}`, {
        fix: "fix it first (agent hooks validate); nothing was written",
      });
  }
  const joined = existing === "" ? text : `${existing}${existing.endsWith("\n") ? "" : "\n"}\n${text}`;
  const after = parseToml(joined);
  if (!after.ok)
    throw new AgentError("config", `${path}: the snippet does not fit: ${after.line}:${after.column}: ${after.message}`, {
      fix: "merge it by hand; nothing was written",
    });
  return { path, content: joined, mode: 0o644 };
}

/** settings.json: `hooks.enabled` and missing scalars set, list arrays appended; the file is rewritten as formatted JSON. */
function jsonWrite(runtime: Runtime, place: Place, snippet: string, scripts: readonly string[]): Write {
  const path = `${place.base}/settings.json`;
  const parsedSnippet = parseJson(snippet);
  if (!parsedSnippet.ok || !isRecord(parsedSnippet.value) || !isRecord(parsedSnippet.value.hooks))
    throw new AgentError("runtime", "template settings.json is not an object with hooks");
  const existingText = runtime.fs.readText(path);
  let existing: Record<string, unknown> = {};
  if (existingText !== undefined && existingText.trim() !== "") {
    const parsed = parseJson(existingText);
    if (!parsed.ok)
      throw new AgentError("config", `${path}:${parsed.line}:${parsed.column}: could not parse JSON: ${parsed.message}`, {
        fix: "fix it first (agent hooks validate); nothing was written",
      });
    if (!isRecord(parsed.value)) throw new AgentError("config", `${path}: the document must be an object`, { fix: "fix it first; nothing was written" });
    existing = parsed.value;
  }
  const hooks: Record<string, unknown> = isRecord(existing.hooks) ? { ...existing.hooks } : {};
  if (existing.hooks !== undefined && !isRecord(existing.hooks))
    throw new AgentError("config", `${path}: hooks: must be an object`, { fix: "fix it first; nothing was written" });
  for (const [key, value] of Object.entries(parsedSnippet.value.hooks)) {
    if (Array.isArray(value)) {
      const entries = value.map((entry) => {
        if (place.scope !== "user" || !isRecord(entry) || typeof entry.command !== "string") return entry;
        const script = scripts.find((name) => entry.command === `${LIST_SCRIPTS}${name}`);
        return script === undefined ? entry : { ...entry, command: `${place.base}/scripts/${script}` };
      });
      for (const entry of entries) {
        if (isRecord(entry) && typeof entry.command === "string" && !preflight(entry.command, { absolutePaths: true }).ok) {
          throw new AgentError("config", `${path}: hooks.${key}: the command ${entry.command} would not pass the list-hook preflight`, {
            fix: "install it by hand from hooks-examples/; nothing was written",
          });
        }
      }
      const current = hooks[key];
      if (current !== undefined && !Array.isArray(current))
        throw new AgentError("config", `${path}: hooks.${key}: must be an array`, { fix: "fix it first; nothing was written" });
      hooks[key] = [...(Array.isArray(current) ? current : []), ...entries];
    } else if (key === "enabled") hooks[key] = value;
    else if (hooks[key] === undefined) hooks[key] = value;
  }
  return { path, content: `${JSON.stringify({ ...existing, hooks }, null, 2)}\n`, mode: 0o644 };
}

function plan(runtime: Runtime, place: Place, name: string, template: HookTemplate): { writes: Write[]; dirs: string[]; made: string } {
  if (template.kind === "dir") {
    const target = `${place.base}/hooks/${name}`;
    if (runtime.fs.lstat(target) !== undefined)
      throw new AgentError("config", `${target} already exists`, { fix: "remove it first or pick another template; nothing was overwritten" });
    const writes = template.files.map((file) => ({ path: `${target}/${file.name}`, content: file.content, mode: file.executable ? 0o755 : 0o644 }));
    return { writes, dirs: [target], made: `${target} (${template.files.map((file) => file.name).join(", ")})` };
  }
  const scripts = template.files.filter((file) => file.name.endsWith(".sh"));
  const writes: Write[] = [];
  for (const script of scripts) {
    const path = `${place.base}/scripts/${script.name}`;
    if (runtime.fs.lstat(path) !== undefined)
      throw new AgentError("config", `${path} already exists (is ${name} installed already?)`, { fix: "remove it first; nothing was overwritten" });
    writes.push({ path, content: script.content, mode: 0o755 });
  }
  const snippet = snippetOf(template);
  const names = scripts.map((script) => script.name);
  const config = snippet.name === "config.toml" ? tomlWrite(runtime, place, snippet.content, names) : jsonWrite(runtime, place, snippet.content, names);
  writes.push(config);
  const verb = snippet.name === "config.toml" ? "appended its hooks to" : "merged its hooks into";
  return {
    writes,
    dirs: [`${place.base}/scripts`],
    made: `${writes
      .slice(0, -1)
      .map((w) => w.path)
      .join(", ")} and ${verb} ${config.path}`,
  };
}

export async function runHooksInit(runtime: Runtime, io: CliIO, options: { cwd: string; template: string | undefined }): Promise<number> {
  const names = Object.keys(HOOK_TEMPLATES).sort();
  if (options.template === undefined) throw new AgentError("usage", "missing TEMPLATE", { fix: `available templates: ${names.join(", ")}` });
  const template = HOOK_TEMPLATES[options.template];
  // CLI-18: an unknown name is a bad value, not bad usage: exit 1 with the list.
  if (template === undefined) throw new AgentError("config", `unknown template "${options.template}"`, { fix: `available templates: ${names.join(", ")}` });
  const place = placeFor(runtime, options.cwd);
  const { writes, dirs, made } = plan(runtime, place, options.template, template);
  for (const dir of dirs) runtime.fs.mkdir(dir, { recursive: true });
  for (const write of writes) {
    runtime.fs.writeText(write.path, write.content, { mode: write.mode });
    runtime.fs.chmod(write.path, write.mode);
  }
  const next =
    place.scope === "user"
      ? "this is a user hook: it runs in every project, no trust needed (agent hooks list shows it)"
      : "next: review it, then run `agent hooks trust` — project hooks never run before the project is trusted";
  io.out(`created ${place.scope} hook ${options.template}: ${made}\n${next}\n`);
  return 0;
}
