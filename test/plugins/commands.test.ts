/**
 * Plugin commands and skills as slash commands (src/plugins/commands.ts), over real plugin folders:
 * $ARGUMENTS and $1…, ARGUMENTS appended, ${CLAUDE_PLUGIN_ROOT}, namespaced and ambiguous names,
 * a skill as a command, front matter of several shapes.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import { discoverPlugins } from "../../src/config/plugins.ts";
import { WarningSink } from "../../src/config/warnings.ts";
import { frontMatter, listItems, pluginCatalog, pluginPromptSection } from "../../src/plugins/components.ts";
import { expandSlashCommand } from "../../src/plugins/commands.ts";

function catalogOf(dirs: string[], agentHome: string) {
  const runtime = createRuntime();
  const sink = new WarningSink();
  const plugins = discoverPlugins(runtime, { agentHome, projectRoot: null, pluginDirs: dirs }, sink);
  return { runtime, sink, catalog: pluginCatalog(runtime.fs, plugins) };
}

describe("plugin slash commands", () => {
  test("arguments, positional words, the plugin root, namespaces, ambiguity and skills", () => {
    const world = makeWorld();
    const a = join(world.root, "a");
    const b = join(world.root, "b");
    world.file(join(a, ".claude-plugin/plugin.json"), JSON.stringify({ name: "alpha" }));
    world.file(
      join(a, "commands/fix.md"),
      "---\ndescription: \"Fix: an issue\"\nargument-hint: '[issue]'\n---\nFix issue $1 with priority $2; all: $ARGUMENTS; script ${CLAUDE_PLUGIN_ROOT}/x.sh\n",
    );
    world.file(join(a, "commands/plain.md"), "Do the plain thing.\n");
    world.file(join(a, "commands/git/commit.md"), "Commit now.\n");
    world.file(join(a, "skills/poem/SKILL.md"), "---\nname: poem\ndescription: >\n  Writes poems\n  about code\n---\nPOEM-SKILL\n");
    world.file(join(b, ".claude-plugin/plugin.json"), JSON.stringify({ name: "beta" }));
    world.file(join(b, "commands/plain.md"), "Beta plain.\n");
    const { runtime, sink, catalog } = catalogOf([a, b], world.agentHome);
    expect(sink.items).toEqual([]);
    const expand = (text: string) => expandSlashCommand(runtime.fs, catalog, text);
    expect(expand(`/fix 42 "very high"`)).toMatchObject({
      kind: "expanded",
      prompt: `Fix issue 42 with priority very high; all: 42 "very high"; script ${a}/x.sh`,
    });
    expect(expand("/alpha:plain extra words")).toMatchObject({ kind: "expanded", prompt: "Do the plain thing.\n\nARGUMENTS: extra words" });
    expect(expand("/beta:plain")).toMatchObject({ kind: "expanded", prompt: "Beta plain." });
    expect(expand("/plain")).toEqual({
      kind: "error",
      message: "/plain is a command of several plugins (alpha, beta); say which: /alpha:plain or /beta:plain",
    });
    expect(expand("/git:commit")).toMatchObject({ kind: "expanded", prompt: "Commit now." });
    expect(expand("/poem haiku")).toMatchObject({ kind: "expanded", prompt: "POEM-SKILL\n\nARGUMENTS: haiku" });
    expect(expand("/nothing here")).toEqual({ kind: "none" });
    expect(expand("fix 42")).toEqual({ kind: "none" });
    expect(catalog.commands.find((command) => command.name === "fix")).toMatchObject({ description: "Fix: an issue", argumentHint: "[issue]" });
    expect(pluginPromptSection(catalog)).toContain("- alpha:poem: Writes poems about code");
  });

  test("front matter: quoted, block and missing", () => {
    expect(frontMatter("---\na: 'it''s'\nb: |\n  one\n  two\nc: plain # not a comment here\n---\nbody").fields).toEqual({
      a: "it's",
      b: "one two",
      c: "plain # not a comment here",
    });
    expect(frontMatter("no front matter").fields).toEqual({});
  });

  test("tool lists: comma, space, YAML block and flow lists; rule patterns keep their commas and spaces", () => {
    const fields = frontMatter("---\ntools:\n  - Read\n  - 'Grep'\nflow: [Read, \"Bash(git add:*)\"]\nhint: [message]\n---\n").fields;
    expect(fields).toEqual({ tools: "Read, Grep", flow: '[Read, "Bash(git add:*)"]', hint: "[message]" });
    expect(listItems(fields.tools ?? "")).toEqual(["Read", "Grep"]);
    expect(listItems(fields.flow ?? "")).toEqual(["Read", "Bash(git add:*)"]);
    expect(listItems("Read Grep  Glob")).toEqual(["Read", "Grep", "Glob"]);
    expect(listItems("Bash(git status:*), Bash(printf 'a, b')")).toEqual(["Bash(git status:*)", "Bash(printf 'a, b')"]);
    expect(listItems("Bash(git diff:*) Read")).toEqual(["Bash(git diff:*)", "Read"]);
  });

  test("a bad manifest is one error naming the file and the field; the plugin does not load", () => {
    const world = makeWorld();
    const bad = join(world.root, "bad");
    world.file(join(bad, ".claude-plugin/plugin.json"), JSON.stringify({ name: "Bad Name!" }));
    const { sink, catalog } = catalogOf([bad], world.agentHome);
    expect(catalog.plugins).toEqual([]);
    expect(sink.items).toEqual([
      {
        severity: "error",
        file: join(bad, ".claude-plugin/plugin.json"),
        field: "name",
        message: `"Bad Name!": a plugin name uses letters, digits and - (kebab-case), e.g. "my-plugin"; plugin not loaded`,
      },
    ]);
  });
});
