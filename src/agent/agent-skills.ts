/**
 * An agent file's `skills:` (a list of skill names, as Claude Code's subagents preload them): each
 * named skill's SKILL.md body (front matter removed) goes into the subagent's system prompt at its
 * start, instead of the model reading it when it decides to. Bounded as instruction files are
 * (src/agent/instructions.ts): each body at most 32 KiB and all of them 64 KiB, a cut named in the
 * prompt. A name that is no loaded skill is a warning naming the agent file, and is left out.
 */
import type { FileSystem } from "../runtime/types.ts";
import { frontMatter, listItems } from "../plugins/components.ts";
import { cutText, INSTRUCTION_FILE_MAX_BYTES, INSTRUCTIONS_TOTAL_MAX_BYTES } from "./instructions.ts";

const encoder = new TextEncoder();

/**
 * The SKILL.md a `skills:` entry names: `plugin:name` exactly; a bare `name` is the agent's own
 * plugin's skill of that name first, then the first loaded plugin's.
 */
export function resolveSkill(skills: ReadonlyMap<string, string>, entry: string, plugin: string | undefined): string | undefined {
  if (entry.includes(":")) return skills.get(entry);
  return (plugin === undefined ? undefined : skills.get(`${plugin}:${entry}`)) ?? skills.get(entry);
}

/** The `skills:` entries that name no loaded skill, each as a warning line's message. */
export function unknownSkills(fields: Readonly<Record<string, string>>, skills: ReadonlyMap<string, string>, plugin: string | undefined): string[] {
  return listItems(fields.skills ?? "")
    .filter((entry) => resolveSkill(skills, entry, plugin) === undefined)
    .map((entry) => `${entry} is not a loaded skill; it is left out`);
}

/**
 * The system-prompt section holding the skills `fields.skills` names ("" when none), and a warning
 * (naming `path`) for each name that is no loaded skill or whose file cannot be read.
 */
export function agentSkillsSection(
  fs: FileSystem,
  agent: { readonly path: string; readonly fields: Readonly<Record<string, string>>; readonly plugin: string | undefined },
  skills: ReadonlyMap<string, string>,
): { readonly section: string; readonly warnings: readonly string[] } {
  const warnings = unknownSkills(agent.fields, skills, agent.plugin).map((message) => `${agent.path}: skills: ${message}`);
  const budget = { left: INSTRUCTIONS_TOTAL_MAX_BYTES };
  const parts: string[] = [];
  const given = new Set<string>();
  for (const entry of listItems(agent.fields.skills ?? "")) {
    const path = resolveSkill(skills, entry, agent.plugin);
    if (path === undefined || given.has(path)) continue;
    given.add(path);
    let raw: string | undefined;
    try {
      raw = fs.readText(path);
    } catch {
      raw = undefined;
    }
    if (raw === undefined) {
      warnings.push(`${agent.path}: skills: ${entry}: ${path} cannot be read; it is left out`);
      continue;
    }
    parts.push(skillBlock(entry, path, frontMatter(raw).body.trim(), budget));
  }
  if (parts.length === 0) return { section: "", warnings };
  return { section: ["Skills loaded for you (follow them when they apply):", ...parts].join("\n\n"), warnings };
}

function skillBlock(entry: string, path: string, body: string, budget: { left: number }): string {
  const size = encoder.encode(body).length;
  const cap = Math.min(INSTRUCTION_FILE_MAX_BYTES, budget.left);
  const { text, cutBytes } = cutText(body, Math.max(0, cap));
  budget.left -= encoder.encode(text).length;
  const cut =
    cutBytes === 0
      ? ""
      : `\n[the last ${cutBytes} of ${size} bytes were cut (${cap < INSTRUCTION_FILE_MAX_BYTES ? `the ${INSTRUCTIONS_TOTAL_MAX_BYTES / 1024} KiB for all skills` : `the ${INSTRUCTION_FILE_MAX_BYTES / 1024} KiB per skill`}); read ${path} for the rest]`;
  return `<skill name="${entry}" path="${path}">\n${text.trimEnd()}${cut}\n</skill>`;
}
