// What the first and later provider requests carry: the system prompt with tool guidance, the
// environment block (git through the runtime) and the instruction files in order, nested ones when
// the agent first works in their directory; caps and the context_files setting; the trust review.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeWorld, runSync, type CliResult, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI, type FakeReply } from "../support/fake-openai.ts";
import { lastJson } from "./support.ts";

interface Body {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
}

const systemOf = (body: unknown): string => String((body as Body).messages[0]?.content ?? "");

function gitRepo(w: World): void {
  const git = (...args: string[]): string =>
    runSync(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], w.project);
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "initial layout");
  git("checkout", "-q", "-b", "feature-x");
}

async function runOpenAI(w: World, replies: FakeReply[], options: { cwd?: string; extra?: string[] } = {}): Promise<CliResult & { requests: unknown[] }> {
  const server = await startFakeOpenAI(replies);
  try {
    const args = [
      "run",
      "--provider",
      "openai",
      "--base-url",
      server.url,
      "--model",
      "fake-model",
      "--permission-mode",
      "bypass",
      "--trust",
      "--output-format",
      "json",
      ...(options.extra ?? []),
      "go",
    ];
    const r = await runCliInProcess(w, args, options.cwd ? { cwd: options.cwd } : {});
    return { requests: server.requests, ...r };
  } finally {
    await server.close();
  }
}

describe("model context", () => {
  test("instruction files in order (user, project root to cwd, AGENTS/CLAUDE/GEMINI), the environment with git, and nested files on first visit", async () => {
    const w = makeWorld({ git: false });
    w.file(join(w.agentHome, "AGENTS.md"), "USER-RULE: answer in English.\n");
    w.file("AGENTS.md", "ROOT-AGENTS: run npm test.\n");
    w.file("CLAUDE.md", "ROOT-CLAUDE\n");
    w.file("GEMINI.md", "ROOT-GEMINI\n");
    w.file("app/AGENTS.md", "APP-AGENTS\n");
    w.file("app/pkg/AGENTS.md", "PKG-AGENTS: pkg rules\n");
    w.file("app/pkg/file.txt", "payload\n");
    w.file("other/AGENTS.md", "OTHER-AGENTS\n");
    gitRepo(w);
    w.file("scratch.txt", "untracked\n");

    const r = await runOpenAI(w, [{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "pkg/file.txt" } }] }, { text: "done" }], {
      cwd: join(w.project, "app"),
    });
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(2);
    const system = systemOf(r.requests[0]);

    const order = ["USER-RULE", "ROOT-AGENTS", "ROOT-CLAUDE", "ROOT-GEMINI", "APP-AGENTS"].map((marker) => system.indexOf(marker));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).toContain(`<user_instructions path="${join(w.agentHome, "AGENTS.md")}">`);
    expect(system).toContain('<project_instructions path="AGENTS.md">');
    expect(system).toContain('<project_instructions path="app/AGENTS.md">');
    // Repository text is marked as such, before the first project file, and never as the user's.
    const note = system.indexOf("come from the repository you are working in");
    expect(note).toBeGreaterThan(system.indexOf("USER-RULE"));
    expect(note).toBeLessThan(system.indexOf("ROOT-AGENTS"));
    expect(system).not.toContain("PKG-AGENTS");
    expect(system).not.toContain("OTHER-AGENTS");

    // Tool guidance for the offered tools, then the environment.
    expect(system).toContain("- edit: replaces old_string with new_string.");
    expect(system).toContain("- task: hands a self-contained piece of work");
    expect(system).toContain(`Working directory: ${join(w.project, "app")}`);
    expect(system).toContain(`Project root: ${w.project}`);
    expect(system).toMatch(/Platform: linux x64, OS version \S+/);
    expect(system).toMatch(/Date: \d{4}-\d{2}-\d{2}\n/);
    expect(system).toContain("Model: fake-model (provider openai)");
    expect(system).toContain("Permission mode: bypass:");
    expect(system).toContain("Git branch: feature-x");
    expect(system).toContain("  ?? scratch.txt");
    expect(system).toMatch(/Recent commits:\n {2}[0-9a-f]{7,} initial layout/);
    expect(system).toContain("Hooks: none active.");

    // The nested file joins the conversation after the call that went there; the system prompt stays the same.
    const second = r.requests[1] as Body;
    expect(systemOf(second)).toBe(system);
    const toolAt = second.messages.findIndex((m) => m.role === "tool" && m.tool_call_id === "r1");
    const nested = second.messages.slice(toolAt + 1).find((m) => String(m.content).includes("PKG-AGENTS"));
    expect(nested?.role).toBe("user");
    expect(String(nested?.content)).toContain('<project_instructions path="app/pkg/AGENTS.md">');
    expect(String(nested?.content)).toContain("come from the repository you are working in");
    expect(JSON.stringify(second)).not.toContain("OTHER-AGENTS");
  });

  test("a resumed session does not add a nested file its conversation already holds", async () => {
    const w = makeWorld();
    w.file("pkg/AGENTS.md", "PKG-AGENTS\n");
    w.file("pkg/a.txt", "a\n");
    w.file("pkg/b.txt", "b\n");
    const read = (id: string, path: string): FakeReply => ({ toolCalls: [{ id, name: "read", arguments: { file_path: path } }] });
    const server = await startFakeOpenAI([read("r1", "pkg/a.txt"), { text: "first" }, read("r2", "pkg/b.txt"), { text: "second" }]);
    try {
      const base = [
        "run",
        "--provider",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "fake-model",
        "--permission-mode",
        "bypass",
        "--trust",
        "--output-format",
        "json",
      ];
      const first = await runCliInProcess(w, [...base, "go"]);
      expect(first.code).toBe(0);
      const id = String(lastJson(first.stdout).session_id);
      const resumed = await runCliInProcess(w, [...base, "--resume", id, "again"]);
      expect(resumed.code).toBe(0);
      const last = JSON.stringify(server.requests[3]);
      expect(last.split("PKG-AGENTS")).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("agent.context_files changes which files are read and their order; active hooks are listed without labels", async () => {
    const w = makeWorld();
    w.file(
      join(w.agentHome, "config.toml"),
      [
        "[agent]",
        'context_files = ["GEMINI.md", "AGENTS.md"]',
        "",
        "[[hooks.lifecycle.pre_tool]]",
        'matcher = "bash"',
        'hooks = [{ command = "cat > /dev/null", label = "secret-label" }]',
      ].join("\n"),
    );
    w.file("AGENTS.md", "ROOT-AGENTS\n");
    w.file("CLAUDE.md", "ROOT-CLAUDE\n");
    w.file("GEMINI.md", "ROOT-GEMINI\n");
    const r = await runOpenAI(w, [{ text: "done" }]);
    expect(r.code).toBe(0);
    const system = systemOf(r.requests[0]);
    expect(system.indexOf("ROOT-GEMINI")).toBeGreaterThan(-1);
    expect(system.indexOf("ROOT-GEMINI")).toBeLessThan(system.indexOf("ROOT-AGENTS"));
    expect(system).not.toContain("ROOT-CLAUDE");
    // An empty .git directory is no work tree: git is not run.
    expect(system).toContain("Git: not a git repository");
    expect(system).toContain("Hooks: 1 active.");
    expect(system).toContain("  - pre_tool on bash (user): 1 hook");
    expect(system).not.toContain("secret-label");
  });

  test("an instruction file over the cap is cut at a line end and the cut is named; a link to a file already read is read once", async () => {
    const w = makeWorld();
    const line = "x".repeat(99);
    w.file("AGENTS.md", `BIG-START\n${`${line}\n`.repeat(400)}BIG-END\n`);
    runSync(["ln", "-s", "AGENTS.md", "CLAUDE.md"], w.project);
    const r = await runOpenAI(w, [{ text: "done" }]);
    const system = systemOf(r.requests[0]);
    // Booleans, not the prompt: a failure should not print 40 KB.
    const cut = /\[AGENTS\.md: the last (\d+) of 40018 bytes were cut \(the 32 KiB per file\)\]\n<\/project_instructions>/.exec(system);
    expect([system.includes("BIG-START"), system.includes("BIG-END"), cut !== null]).toEqual([true, false, true]);
    // The kept part ends at a line end, within the cap.
    expect(Number(cut?.[1])).toBeGreaterThanOrEqual(40018 - 32 * 1024);
    expect(system.includes(`${"x".repeat(99)}\n[AGENTS.md: the last`)).toBe(true);
    expect([system.split("BIG-START").length, system.includes('path="CLAUDE.md"')]).toEqual([2, false]);
  });

  test("a bad agent.context_files entry is one error naming the file and the field", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), '[agent]\ncontext_files = ["docs/AGENTS.md"]\n');
    const r = await runCliInProcess(w, ["hooks", "validate"]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("agent.context_files");
    expect(r.stdout + r.stderr).toContain("must be a file name, not a path");
  });

  test("agent hooks trust lists the project's instruction files as repository text", async () => {
    const w = makeWorld();
    w.file("AGENTS.md", "rules\n");
    w.file("CLAUDE.md", "more rules\n");
    const r = await runCliInProcess(w, ["hooks", "trust"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("project instructions (repository text the model reads as the project's conventions, never with your authority; not pinned):");
    expect(r.stdout).toContain("  text AGENTS.md\n  text CLAUDE.md\n");
  });

  test("@path imports: a file's imports follow it, once each, in code they are text; a project file cannot import outside the project", async () => {
    const w = makeWorld();
    // The secret sits beside the project: a cloned repository must not pull it into the prompt.
    w.file(join(w.root, "outside-secret.md"), "OUTSIDE-SECRET\n");
    w.file("AGENTS.md", "ROOT-AGENTS\n");
    w.file(
      "CLAUDE.md",
      [
        "See @AGENTS.md and @docs/style.md.",
        "Mail me at someone@docs/style.md-not-an-import",
        "Not here: `@docs/inline.md`",
        "```",
        "@docs/fenced.md",
        "```",
        "Escape attempt: @../outside-secret.md",
        "A mention: @reviewer",
        "",
      ].join("\n"),
    );
    w.file("docs/style.md", "STYLE-RULES, more in @deeper/more.md\n");
    w.file("docs/deeper/more.md", "DEEPER-RULES\n");
    w.file("docs/inline.md", "INLINE-TEXT\n");
    w.file("docs/fenced.md", "FENCED-TEXT\n");
    const r = await runOpenAI(w, [{ text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    const system = systemOf(r.requests[0]);
    // Each file once, imports right after their importer, depth first.
    expect(system.split("ROOT-AGENTS")).toHaveLength(2);
    const order = ["ROOT-AGENTS", "See @AGENTS.md", "STYLE-RULES", "DEEPER-RULES"].map((marker) => system.indexOf(marker));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] as number)))).toBe(true);
    expect(system).toContain('<project_instructions path="docs/style.md" imported_by="CLAUDE.md">');
    expect(system).toContain('<project_instructions path="docs/deeper/more.md" imported_by="docs/style.md">');
    for (const text of ["INLINE-TEXT", "FENCED-TEXT", "OUTSIDE-SECRET"]) expect(system).not.toContain(text);
    expect(system).toContain("[CLAUDE.md: @../outside-secret.md not imported: outside the project]");

    // The trust review lists what the imports bring in.
    const trust = await runCliInProcess(w, ["hooks", "trust"]);
    expect(trust.stdout).toContain(
      "  text AGENTS.md\n  text CLAUDE.md\n  text docs/style.md (imported by CLAUDE.md)\n  text docs/deeper/more.md (imported by docs/style.md)\n",
    );
  });

  test("@path imports in the user's own file may reach outside the project; a link inside the project to a file outside is refused", async () => {
    const w = makeWorld();
    w.file(join(w.root, "personal.md"), "PERSONAL-RULES\n");
    w.file(join(w.agentHome, "AGENTS.md"), `USER-RULE, and @${join(w.root, "personal.md")}\n`);
    w.file(join(w.root, "elsewhere.md"), "LINKED-SECRET\n");
    runSync(["ln", "-s", join(w.root, "elsewhere.md"), "linked.md"], w.project);
    w.file("AGENTS.md", "ROOT-AGENTS, see @linked.md\n");
    const r = await runOpenAI(w, [{ text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    const system = systemOf(r.requests[0]);
    expect(system).toContain("PERSONAL-RULES");
    expect(system).not.toContain("LINKED-SECRET");
    expect(system).toContain("[AGENTS.md: @linked.md not imported: outside the project]");
  });
});
