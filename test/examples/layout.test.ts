/**
 * The examples as files: every example has a README, every script a shebang and the executable
 * bit, every config snippet parses and names the right event, the audit command passes the D12
 * preflight, and the demo's copies of the examples have not drifted.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { preflight } from "../../src/hooks/shell/preflight.ts";
import { EXAMPLES } from "./helpers.ts";

const EXAMPLE_NAMES = [
  "guard-bash",
  "protect-secrets",
  "audit-log",
  "format-on-write",
  "session-context",
  "keep-going-until-tests-pass",
  "prompt-guard",
  "notify",
];
const DEMO = join(EXAMPLES, "demo");

function json(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Every shell script under `dir`, recursively. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".sh"))
    .map((name) => join(dir, name));
}

describe("hooks-examples layout", () => {
  test("every example has a README and is listed in the top-level table", () => {
    const index = readFileSync(join(EXAMPLES, "README.md"), "utf8");
    for (const name of EXAMPLE_NAMES) {
      expect(existsSync(join(EXAMPLES, name, "README.md"))).toBe(true);
      expect(index).toContain(`| [${name}](${name}/) |`);
    }
  });

  test("every script has a POSIX shebang and the executable bit", () => {
    const all = scripts(EXAMPLES);
    expect(all.length).toBeGreaterThanOrEqual(EXAMPLE_NAMES.length + 3);
    for (const path of all) {
      expect(readFileSync(path, "utf8").split("\n")[0]).toBe("#!/bin/sh");
      expect(statSync(path).mode & 0o111).toBe(0o111);
    }
  });

  test("no script needs jq or npx, and each parses as POSIX sh", () => {
    for (const path of scripts(EXAMPLES)) {
      const code = readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => !line.trimStart().startsWith("#"))
        .join("\n");
      expect(code).not.toMatch(/\bjq\b|\bnpx\b|\[\[ /);
      expect(spawnSync("sh", ["-n", path]).status).toBe(0);
    }
  });

  test("hook directories declare the documented hook.json", () => {
    expect(json(join(EXAMPLES, "guard-bash", "hook.json"))).toEqual({
      name: "guard-bash",
      event: "pre_tool",
      match: "bash",
      run: "./run.sh",
      timeout: "5s",
      fail_closed: true,
    });
    expect(json(join(EXAMPLES, "protect-secrets", "hook.json"))).toEqual({
      name: "protect-secrets",
      event: "pre_tool",
      match: "*",
      run: "./run.sh",
      timeout: "5s",
      fail_closed: true,
    });
  });

  test("D12 the audit-log commands pass the list-hook preflight", () => {
    const settings = json(join(EXAMPLES, "audit-log", "settings.json"));
    const demo = json(join(DEMO, ".agent", "settings.json"));
    const commands: string[] = [];
    for (const file of [settings, demo]) {
      const text = JSON.stringify(file);
      for (const match of text.matchAll(/"command":"([^"]*)"/g)) commands.push(match[1] ?? "");
    }
    expect(commands).toEqual([
      "./.agent/scripts/audit-jsonl.sh",
      "./.agent/scripts/audit-jsonl.sh",
      "./.agent/scripts/demo-audit.sh",
      "./.agent/scripts/demo-audit.sh",
    ]);
    for (const command of commands) expect(preflight(command, { absolutePaths: false })).toEqual({ ok: true });
    expect(JSON.stringify(settings)).toContain('"enabled":true');
  });

  test("lifecycle snippets parse and use the seed event keys", () => {
    const expected: Record<string, string[]> = {
      "format-on-write": ["post_tool_use"],
      "session-context": ["session_start"],
      "keep-going-until-tests-pass": ["stop"],
      "prompt-guard": ["user_prompt_submit"],
      notify: ["notification", "stop"],
    };
    for (const [name, events] of Object.entries(expected)) {
      const text = readFileSync(join(EXAMPLES, name, "config.toml"), "utf8");
      const parsed = parseToml(text);
      const hooks = parsed.hooks;
      expect(typeof hooks === "object" && hooks !== null && "lifecycle" in hooks).toBe(true);
      const lifecycle = typeof hooks === "object" && hooks !== null && "lifecycle" in hooks ? hooks.lifecycle : undefined;
      expect(Object.keys(lifecycle ?? {})).toEqual(events);
      expect(text).toContain(`command = "$AGENT_PROJECT_DIR/.agent/scripts/${name}.sh"`);
    }
    const format = parseToml(readFileSync(join(EXAMPLES, "format-on-write", "config.toml"), "utf8"));
    expect(JSON.stringify(format)).toContain('"matcher":"Write|Edit"');
  });

  test("the demo's copies of the examples are identical to the examples", () => {
    for (const file of ["hook.json", "run.sh"]) {
      expect(readFileSync(join(DEMO, ".agent", "hooks", "guard-bash", file), "utf8")).toBe(readFileSync(join(EXAMPLES, "guard-bash", file), "utf8"));
    }
    expect(readFileSync(join(DEMO, ".agent", "scripts", "audit-jsonl.sh"), "utf8")).toBe(readFileSync(join(EXAMPLES, "audit-log", "audit-jsonl.sh"), "utf8"));
  });

  test("the demo script follows D20 tool inputs and ignores what it generates", () => {
    const script = json(join(DEMO, "script.json"));
    const text = JSON.stringify(script);
    expect(text).toContain('"arguments":{"command":"ls"}');
    expect(text).toContain('"arguments":{"command":"rm -rf /"}');
    expect(text).toMatch(/"name":"write","arguments":\{"file_path":"\.agent\/demo-out\/notes\.txt","content":"[^"]+"\}/);
    expect(readFileSync(join(DEMO, ".gitignore"), "utf8")).toContain(".agent/demo-out/");
  });
});
