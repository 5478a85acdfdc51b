// Indirect references cannot escape the digest. Every file under `.agent/` is pinned
// (bounded; outputs in `.agent/state/`, `*-out/`, `*.log`, `*.jsonl` are not), a project hook running
// a file outside the project is listed as such in every review, and a tree over the bound cannot
// be trusted at all.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_TREE_BOUNDS } from "../../src/trust/material.ts";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { RUN, trustInProcess } from "./helpers.ts";

setDefaultTimeout(60_000);

function project(): World {
  const w = makeWorld();
  writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }], "s.json");
  return w;
}

describe("indirect references", () => {
  test("a sourced ./lib.sh and a globbed script are pinned: editing either untrusts the project", async () => {
    const w = project();
    w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\n. "$(dirname "$0")/lib.sh"\n`, { executable: true });
    w.file(".agent/hooks/x/lib.sh", "true\n");
    w.file(".agent/config.toml", `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "bash .agent/hooks/[s]tart.sh" }]\n`);
    w.file(".agent/hooks/start.sh", "true\n");
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);

    for (const file of [".agent/hooks/x/lib.sh", ".agent/hooks/start.sh"]) {
      appendFileSync(join(w.project, file), `touch "$AGENT_PROJECT_DIR/pwned"\n`);
      const r = await runCliInProcess(w, RUN);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`changed: file ${join(w.project, file)}`);
      expect(existsSync(join(w.project, "pwned"))).toBe(false);
      await trustInProcess(w);
    }
  });

  test("hook outputs (.agent/audit.jsonl, .agent/state/, .agent/demo-out/) and config.toml's non-hook settings keep the trust", async () => {
    const w = project();
    w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\n`, { executable: true });
    await trustInProcess(w);
    w.file(".agent/audit.jsonl", "{}\n");
    w.file(".agent/state/marker", "1\n");
    w.file(".agent/demo-out/notes.txt", "notes\n");
    w.file(".agent/config.toml", `model = "m2"\n`);
    const r = await runCliInProcess(w, RUN);
    expect(r.stderr).not.toContain("trust");
    expect(r.code).toBe(0);
  });

  test("a hook dir whose run is outside the project is listed as outside (and pinned) in the refusal, hooks trust and hooks list", async () => {
    const w = project();
    const outside = w.file(join(w.root, "elsewhere", "tool.sh"), "#!/bin/sh\ncat >/dev/null\n", { executable: true });
    w.file(".agent/hooks/ext/hook.json", JSON.stringify({ event: "pre_tool", run: outside }));
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "abs", command: `${outside} --check` }] } }));
    const refusal = await runCliInProcess(w, RUN);
    expect(refusal.code).toBe(1);
    expect(refusal.stderr).toContain(`outside the project (pinned; a change to it needs trust again): hook ext runs or names ${outside}`);
    expect(refusal.stderr).toContain(`hook abs runs or names ${outside}`);
    expect((await runCliInProcess(w, ["hooks", "list"])).stdout).toContain(`outside the project (pinned): ${outside}`);
    expect((await trustInProcess(w)).stdout).toContain(`hook ext runs or names ${outside}`);
  });

  test(`a .agent/ tree over ${AGENT_TREE_BOUNDS.maxFiles} files cannot be trusted: hooks trust exits 1 and writes nothing`, async () => {
    const w = project();
    w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\n`, { executable: true });
    const bulk = join(w.project, ".agent", "data");
    mkdirSync(bulk, { recursive: true });
    for (let i = 0; i <= AGENT_TREE_BOUNDS.maxFiles; i++) writeFileSync(join(bulk, `f${i}.txt`), "x");
    const t = await runCliInProcess(w, ["hooks", "trust"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain(`holds more than ${AGENT_TREE_BOUNDS.maxFiles} files`);
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot trust this project");
    // --trust cannot bypass the bound either: the digest would cover nothing.
    expect((await runCliInProcess(w, ["run", "--trust", ...RUN.slice(1)])).code).toBe(1);
  });
});
