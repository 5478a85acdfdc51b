/**
 * The text parts of loaded Claude Code plugins: commands (`commands/*.md`, slash commands), agents
 * (`agents/*.md`, `task` subagents) and skills (`skills/NAME/SKILL.md`), each named and described by
 * its front matter. Hooks and MCP servers, which run code, are loaded with the config
 * (src/config/plugins.ts).
 *
 * Skills are offered by name and description in a short system-prompt section and loaded when used:
 * the model reads the skill's SKILL.md (and any file beside it) with the `read` tool, which may read
 * inside a loaded plugin's root (`ToolContext.readRoots`) as well as the workspace.
 */
import type { FileSystem } from "../runtime/types.ts";
import type { PluginSource } from "../config/plugins.ts";
import { isInside, joinPath } from "../util/path-utils.ts";

export interface PluginCommand {
  /** `name` for `commands/name.md`, `dir:name` for `commands/dir/name.md`. */
  readonly name: string;
  readonly plugin: string;
  readonly pluginRoot: string;
  readonly path: string;
  readonly description: string;
  readonly argumentHint: string;
}

export interface PluginAgent {
  readonly name: string;
  readonly plugin: string;
  readonly path: string;
  readonly description: string;
}

export interface PluginSkill {
  readonly name: string;
  readonly plugin: string;
  /** The skill's directory; SKILL.md is `path`. */
  readonly dir: string;
  readonly path: string;
  readonly description: string;
  /** false for `disable-model-invocation: true`: only a user's `/name` runs it; the model is not offered it. */
  readonly modelInvocable: boolean;
}

export interface PluginCatalog {
  readonly plugins: readonly PluginSource[];
  readonly commands: readonly PluginCommand[];
  readonly agents: readonly PluginAgent[];
  readonly skills: readonly PluginSkill[];
}

/**
 * Top-level `key: value` pairs of a Markdown file's front matter (plain or quoted scalars; a `|` or
 * `>` block joined into one line; a `- item` block list joined with `, `; a `[a, b]` flow list kept
 * as written, for `listItems`, since `argument-hint: [message]` is meant as text). Enough for `name`, `description`,
 * `argument-hint`, `tools`, `model`; anything else in the front matter is left alone.
 */
export function frontMatter(text: string): { fields: Record<string, string>; body: string } {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") return { fields: {}, body: text };
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (end < 0) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  for (let i = 1; i < end; i++) {
    const match = /^([A-Za-z][A-Za-z0-9_-]*):[ \t]*(.*)$/.exec(lines[i] ?? "");
    if (!match?.[1]) continue;
    let value = (match[2] ?? "").trim();
    if (value === "" && /^\s*- /.test(lines[i + 1] ?? "")) {
      const items: string[] = [];
      while (i + 1 < end && /^\s*- /.test(lines[i + 1] ?? "")) items.push(unquote((lines[++i] ?? "").replace(/^\s*- /, "").trim()));
      value = items.join(", ");
    } else if (/^[|>][+-]?$/.test(value)) {
      const block: string[] = [];
      while (i + 1 < end && /^(\s+|$)/.test(lines[i + 1] ?? "")) block.push((lines[++i] ?? "").trim());
      value = block.filter((line) => line !== "").join(" ");
    } else if (/^"(?:[^"\\]|\\.)*"$/.test(value)) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        value = value.slice(1, -1);
      }
    } else if (/^'.*'$/.test(value)) value = value.slice(1, -1).replace(/''/g, "'");
    fields[match[1]] = value;
  }
  return { fields, body: lines.slice(end + 1).join("\n") };
}

/**
 * The items of a comma list (`Read, Grep`, `Bash(git add:*), Bash(git status:*)`): split at commas
 * outside parentheses, trimmed, empty ones dropped. A list without commas splits at spaces, as
 * Claude Code reads `tools: Read Grep`.
 */
export function listItems(list: string): string[] {
  // A YAML flow list (`[Read, Grep]`) is kept as written by frontMatter, since `argument-hint: [x]` is text.
  const text = /^\s*\[.*\]\s*$/.test(list) ? list.trim().slice(1, -1) : list;
  const items: string[] = [];
  let depth = 0;
  let current = "";
  const hasComma = /,(?![^(]*\))/.test(text);
  for (const char of text) {
    if (char === "(") depth += 1;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || (!hasComma && /\s/.test(char)))) {
      items.push(current.trim());
      current = "";
    } else current += char;
  }
  items.push(current.trim());
  return items.map(unquote).filter((item) => item !== "");
}

function unquote(value: string): string {
  return /^"(?:[^"\\]|\\.)*"$|^'.*'$/.test(value) ? value.slice(1, -1) : value;
}

function readText(fs: FileSystem, path: string): string | undefined {
  try {
    return fs.readText(path);
  } catch {
    return undefined;
  }
}

/** Directories the manifest adds for a component (`"commands": "./more/"` or a list), plus the default one. */
function componentDirs(plugin: PluginSource, key: "commands" | "agents" | "skills"): string[] {
  const declared = plugin.manifest[key];
  const extra = typeof declared === "string" ? [declared] : Array.isArray(declared) ? declared.filter((item): item is string => typeof item === "string") : [];
  return [joinPath(plugin.root, key), ...extra.map((dir) => joinPath(plugin.root, dir))].filter(
    (dir, index, all) => isInside(dir, plugin.root) && all.indexOf(dir) === index,
  );
}

const MD_NAME = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.md$/;

function commandsOf(fs: FileSystem, plugin: PluginSource): PluginCommand[] {
  const out: PluginCommand[] = [];
  const visit = (dir: string, prefix: string, depth: number): void => {
    for (const entry of fs.readdir(dir)) {
      const path = joinPath(dir, entry);
      if (fs.stat(path)?.kind === "dir" && depth < 2 && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(entry)) {
        visit(path, `${prefix}${entry}:`, depth + 1);
        continue;
      }
      const match = MD_NAME.exec(entry);
      const text = match?.[1] ? readText(fs, path) : undefined;
      if (!match?.[1] || text === undefined) continue;
      const { fields } = frontMatter(text);
      out.push({
        name: `${prefix}${match[1]}`,
        plugin: plugin.name,
        pluginRoot: plugin.root,
        path,
        description: fields.description ?? "",
        argumentHint: fields["argument-hint"] ?? "",
      });
    }
  };
  for (const dir of componentDirs(plugin, "commands")) visit(dir, "", 0);
  return out;
}

function agentsOf(fs: FileSystem, plugin: PluginSource): PluginAgent[] {
  const out: PluginAgent[] = [];
  for (const dir of componentDirs(plugin, "agents")) {
    for (const entry of fs.readdir(dir)) {
      const match = MD_NAME.exec(entry);
      const path = joinPath(dir, entry);
      const text = match?.[1] ? readText(fs, path) : undefined;
      if (!match?.[1] || text === undefined) continue;
      const { fields } = frontMatter(text);
      const name = fields.name && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(fields.name) ? fields.name : match[1];
      out.push({ name, plugin: plugin.name, path, description: fields.description ?? "" });
    }
  }
  return out;
}

function skillsOf(fs: FileSystem, plugin: PluginSource): PluginSkill[] {
  const out: PluginSkill[] = [];
  for (const dir of componentDirs(plugin, "skills")) {
    for (const entry of fs.readdir(dir)) {
      const skillDir = joinPath(dir, entry);
      const path = joinPath(skillDir, "SKILL.md");
      const text = readText(fs, path);
      if (text === undefined) continue;
      const { fields } = frontMatter(text);
      out.push({
        name: fields.name || entry,
        plugin: plugin.name,
        dir: skillDir,
        path,
        description: fields.description ?? "",
        modelInvocable: !disablesModelInvocation(fields),
      });
    }
  }
  return out;
}

/** `disable-model-invocation: true` (Claude Code's key, YAML's spellings of true). */
export function disablesModelInvocation(fields: Readonly<Record<string, string>>): boolean {
  return /^(true|yes|on)$/i.test(fields["disable-model-invocation"]?.trim() ?? "");
}

/** Every loaded plugin's commands, agents and skills, in plugin order. */
export function pluginCatalog(fs: FileSystem, plugins: readonly PluginSource[]): PluginCatalog {
  return {
    plugins,
    commands: plugins.flatMap((plugin) => commandsOf(fs, plugin)),
    agents: plugins.flatMap((plugin) => agentsOf(fs, plugin)),
    skills: plugins.flatMap((plugin) => skillsOf(fs, plugin)),
  };
}

/** Plugin agents for the `task` tool: `name` and `plugin:name` → the agent file (the first plugin of a name wins). */
export function pluginAgentFiles(catalog: PluginCatalog): Map<string, string> {
  const files = new Map<string, string>();
  for (const agent of catalog.agents) {
    if (!files.has(agent.name)) files.set(agent.name, agent.path);
    files.set(`${agent.plugin}:${agent.name}`, agent.path);
  }
  return files;
}

/** Plugin skills for an agent's `skills:`: `name` and `plugin:name` → SKILL.md (the first plugin of a name wins). */
export function pluginSkillFiles(catalog: PluginCatalog): Map<string, string> {
  const files = new Map<string, string>();
  for (const skill of catalog.skills) {
    if (!files.has(skill.name)) files.set(skill.name, skill.path);
    files.set(`${skill.plugin}:${skill.name}`, skill.path);
  }
  return files;
}

/** Roots the `read` tool may read beside the workspace: every loaded plugin's. */
export function pluginReadRoots(catalog: PluginCatalog): string[] {
  return catalog.plugins.map((plugin) => plugin.root);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The system-prompt section that offers the plugins' skills (`plugin:name`, as plugin commands name
 * them, the description, where SKILL.md is) and subagents (`plugin:name` for `task`'s
 * `subagent_type`); "" when there are none. A skill with `disable-model-invocation: true` is left
 * out: it is the user's to run as `/name`. The system prompt's owner appends it.
 */
export function pluginPromptSection(catalog: PluginCatalog): string {
  const parts: string[] = [];
  const offered = catalog.skills.filter((skill) => skill.modelInvocable);
  if (offered.length > 0) {
    parts.push(
      "Skills: when a task matches a skill's description, first read its SKILL.md with the read tool and follow it (files it names are in the same directory).",
      ...offered.map((skill) => `- ${skill.plugin}:${skill.name}: ${oneLine(skill.description, 300)} [${skill.path}]`),
    );
  }
  if (catalog.agents.length > 0) {
    if (parts.length > 0) parts.push("");
    parts.push(
      "Subagents for the task tool (subagent_type):",
      ...catalog.agents.map((agent) => `- ${agent.plugin}:${agent.name}: ${oneLine(agent.description, 300)}`),
    );
  }
  return parts.join("\n");
}
