// Hooks installed at user scope never execute a file the project ships, through the real CLI:
// `agent hooks init` in $HOME installs format-on-write and keep-going-until-tests-pass for the
// user; in a cloned project with its own node_modules/.bin/prettier (also on PATH, as `npm run`
// puts it) and a package.json test script, neither runs, while a prettier installed outside the
// project keeps formatting (without the project's config, which could load plugins).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli } from "../support/cli.ts";

setDefaultTimeout(90_000);

describe("user-scope templates", () => {
  test("format-on-write and keep-going-until-tests-pass from ~/.agent run none of the project's files; a prettier on PATH still formats", () => {
    const w = makeWorld();
    for (const template of ["format-on-write", "keep-going-until-tests-pass"]) {
      const init = runCli(w, ["hooks", "init", template], { cwd: w.home });
      expect(init.stderr).toBe("");
      expect(init.code).toBe(0);
    }
    expect(existsSync(join(w.agentHome, "scripts", "format-on-write.sh"))).toBe(true);
    expect(existsSync(join(w.project, ".agent"))).toBe(false);

    const canary = (name: string): string => `#!/bin/sh\ntouch "${w.root}/${name}"\nexit 1\n`;
    w.file("node_modules/.bin/prettier", canary("project-prettier-ran"), { executable: true });
    w.file("package.json", JSON.stringify({ name: "cloned", private: true, scripts: { test: `touch ${w.root}/project-tests-ran; exit 1` } }));
    w.file(join(w.root, "user-bin", "prettier"), `#!/bin/sh\nprintf '%s\\n' "$*" >> "${w.root}/user-prettier.calls"\n`, { executable: true });
    w.file(
      "script.json",
      JSON.stringify({ turns: [{ tool_calls: [{ id: "w1", name: "write", arguments: { file_path: "a.ts", content: "let x=1\n" } }] }, { text: "done" }] }),
    );

    const path = `${join(w.project, "node_modules", ".bin")}:node_modules/.bin:${join(w.root, "user-bin")}:${process.env.PATH}`;
    const r = runCli(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "go"], { env: w.env({ PATH: path }) });
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.project, "a.ts"), "utf8")).toBe("let x=1\n");
    expect(existsSync(join(w.root, "project-prettier-ran"))).toBe(false);
    expect(existsSync(join(w.root, "project-tests-ran"))).toBe(false);
    // Hooks see the resolved path (D27), so the formatter gets it absolute.
    expect(readFileSync(join(w.root, "user-prettier.calls"), "utf8")).toBe(`--no-config --write ${join(w.project, "a.ts")}\n`);
  });
});
