import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runConfigSchema, runConfigShow } from "../../src/cli/commands/config.ts";
import { runHooksList } from "../../src/cli/commands/hooks-list.ts";
import { runHooksValidate } from "../../src/cli/commands/hooks-validate.ts";
import { captureIO, sandbox, SCRIPT, type Sandbox } from "../config/fixture.ts";

/** CLI-01's setup: user hook dir `guard`, user lifecycle group, project before_tool hook `audit`. */
function cli01(): Sandbox {
  const s = sandbox();
  s.write(join(s.agentHome, "hooks/guard/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh", fail_closed: true }));
  s.write(join(s.agentHome, "hooks/guard/run.sh"), SCRIPT, 0o755);
  s.write(
    join(s.agentHome, "config.toml"),
    `[hooks]\nenabled = true\n[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "./check.sh" }]\n`,
  );
  s.write(
    join(s.project, ".agent/settings.json"),
    JSON.stringify({ hooks: { before_tool: [{ label: "audit", command: "./scripts/audit.sh", include_tools: ["bash", "write"] }] } }),
  );
  s.write(join(s.project, "scripts/audit.sh"), SCRIPT, 0o755);
  s.write(join(s.project, "check.sh"), SCRIPT, 0o755);
  return s;
}

async function run(fn: (io: ReturnType<typeof captureIO>) => Promise<number>) {
  const io = captureIO();
  const code = await fn(io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("agent hooks list", () => {
  test("CLI-01 SEC-34 one row per hook with every column; project hooks marked untrusted", async () => {
    const s = cli01();
    const { code, out } = await run((io) => runHooksList(s.runtime, io, { cwd: s.project, json: false }));
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]?.split(/\s+/)).toEqual(["LABEL", "SCOPE", "FORM", "DIALECT", "EVENT", "MATCHER", "POLICY", "ASYNC", "TIMEOUT", "STATUS"]);
    const rows = lines.filter((l) => /^\S/.test(l) && !l.startsWith("LABEL") && !l.startsWith("project hooks"));
    expect(rows.map((r) => r.split(/\s+/))).toEqual([
      ["guard", "user", "dir", "action", "pre_tool", "*", "fail_closed", "no", "5s", "active"],
      ["pre_tool_use[0].hooks[0]", "user", "lifecycle", "claude", "pre_tool", "Bash", "warn", "no", "60s", "active"],
      ["audit", "project", "list", "envelope", "pre_tool", "bash,write", "warn", "no", "5s", "untrusted"],
    ]);
    expect(out).toContain("    source: ~/.agent/hooks/guard/hook.json");
    expect(out).toContain(`    run: ${join(s.agentHome, "hooks/guard/run.sh")}`);
    expect(out).toContain("    source: .agent/settings.json hooks.before_tool[0]");
    expect(out).toContain("    command: ./scripts/audit.sh");
    expect(out).toContain("agent hooks trust");
  });

  test("CLI-02 --json prints enabled, hooks with every field, and warnings", async () => {
    const s = cli01();
    s.write(join(s.agentHome, "hooks/bad/hook.json"), JSON.stringify({ event: "pre_tool", run: "./r", fail_close: true }));
    const { code, out } = await run((io) => runHooksList(s.runtime, io, { cwd: s.project, json: true, isTrusted: () => true }));
    expect(code).toBe(0);
    const parsed = JSON.parse(out);
    expect(parsed.enabled).toBe(true);
    expect(parsed.hooks.map((h: { label: string }) => h.label)).toEqual(["bad", "guard", "pre_tool_use[0].hooks[0]", "audit"]);
    expect(parsed.hooks[1]).toEqual({
      label: "guard",
      scope: "user",
      form: "dir",
      dialect: "action",
      event: "pre_tool",
      matcher: "*",
      policy: "fail_closed",
      async: false,
      timeout_ms: 5000,
      source: join(s.agentHome, "hooks/guard/hook.json"),
      field: "",
      command: join(s.agentHome, "hooks/guard/run.sh"),
      type: "command",
      trusted: true,
      disabled: false,
    });
    expect(parsed.hooks[3]).toMatchObject({
      scope: "project",
      form: "list",
      policy: "warn",
      command: "./scripts/audit.sh",
      trusted: true,
      field: "hooks.before_tool[0]",
    });
    expect(parsed.warnings).toEqual([
      { severity: "error", file: join(s.agentHome, "hooks/bad/hook.json"), field: "fail_close", message: expect.stringContaining("unknown key") },
    ]);
    const untrusted = JSON.parse((await run((io) => runHooksList(s.runtime, io, { cwd: s.project, json: true, isTrusted: () => false }))).out);
    expect(untrusted.hooks.map((h: { trusted: boolean }) => h.trusted)).toEqual([true, true, true, false]);
  });

  test("CLI-03 DIR-09 a malformed hook.json: valid hook listed, one warning, exit 0", async () => {
    const s = sandbox();
    s.write(join(s.agentHome, "hooks/broken/hook.json"), "{ nope");
    s.write(join(s.agentHome, "hooks/empty/readme.txt"), "x");
    s.write(join(s.agentHome, "hooks/ok/hook.json"), JSON.stringify({ event: "post_tool", run: "./r" }));
    const { code, out } = await run((io) => runHooksList(s.runtime, io, { cwd: s.project, json: false }));
    expect(code).toBe(0);
    expect(out).toMatch(/^ok\s+user\s+dir/m);
    expect(out).toContain("1 load warning:");
    expect(out).toContain("~/.agent/hooks/broken/hook.json:1:3: could not parse hook.json");
    expect(out).not.toContain("empty");
  });

  test("CLI-22 hooks off: list says so and exits 0", async () => {
    const s = cli01();
    for (const value of ["off", "OFF", " off "]) {
      const { code, out } = await run((io) => runHooksList(s.withEnv({ AGENT_HOOKS: value }), io, { cwd: s.project, json: false }));
      expect(code).toBe(0);
      expect(out).toBe("hooks disabled (AGENT_HOOKS=off)\n");
    }
    const json = await run((io) => runHooksList(s.withEnv({ AGENT_HOOKS: "off" }), io, { cwd: s.project, json: true }));
    expect(JSON.parse(json.out)).toEqual({ enabled: false, hooks: [], warnings: [] });
  });
});

describe("agent hooks validate", () => {
  test("CLI-13 valid config prints ok with counts and exits 0", async () => {
    const s = cli01();
    const { code, out } = await run((io) => runHooksValidate(s.runtime, io, { cwd: s.project }));
    expect(out).toBe("ok: 3 hooks in 3 files\n");
    expect(code).toBe(0);
  });

  test("CLI-13 PLUS-10 out-of-range values: one line each naming file, field and bound; exit 1", async () => {
    const s = sandbox();
    s.write(
      join(s.project, ".agent/settings.json"),
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [
            { command: "./a.sh" },
            { command: "./b.sh", timeout_seconds: 61 },
            { command: "c", stdout_max_bytes: 65537 },
            { command: "d", provider_context_max_bytes: 16385 },
          ],
        },
      }),
    );
    s.write(join(s.project, ".agent/hooks/slow/hook.json"), JSON.stringify({ event: "pre_tool", run: "./r", timeout: "61s" }));
    s.write(join(s.project, ".agent/config.toml"), `[[hooks.lifecycle.stop]]\nhooks = [{ command = "true", timeout_seconds = 0 }]\n`);
    s.write(join(s.project, "a.sh"), SCRIPT, 0o755);
    const { code, out } = await run((io) => runHooksValidate(s.runtime, io, { cwd: s.project }));
    expect(code).toBe(1);
    expect(out).toContain("error: .agent/settings.json: hooks.before_tool[1].timeout_seconds: 61 is out of range 1..60");
    expect(out).toContain("error: .agent/settings.json: hooks.before_tool[2].stdout_max_bytes: 65537 is out of range 1..65536");
    expect(out).toContain("error: .agent/settings.json: hooks.before_tool[3].provider_context_max_bytes: 16385 is out of range 1..16384");
    expect(out).toContain("error: .agent/hooks/slow/hook.json: timeout:");
    expect(out).toMatch(/hook\.json: timeout: .*max 60s/);
    expect(out).toContain("error: .agent/config.toml: hooks.lifecycle.stop[0].hooks[0].timeout_seconds: 0 is out of range 1..600");
    expect(out.trim().split("\n").at(-1)).toMatch(/^5 errors, 0 warnings \(1 hook in 3 files\)$/);
  });

  test("CLI-14 TOOL-39 PLUS-04 missing and non-executable targets, interpreters not on PATH", async () => {
    const s = sandbox();
    const p = s.project;
    s.write(join(p, ".agent/hooks/gone/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    s.write(join(p, ".agent/hooks/plain/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    s.write(join(p, ".agent/hooks/plain/run.sh"), SCRIPT, 0o644);
    s.write(join(p, "scripts/a.py"), "print(1)\n");
    s.write(
      join(p, ".agent/settings.json"),
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ command: "python9 scripts/a.py" }, { command: "python3 scripts/missing.py" }] } }),
    );
    s.write(join(p, ".agent/config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "$AGENT_PROJECT_DIR/.agent/hooks/missing.sh" }]\n`);
    const { code, out } = await run((io) => runHooksValidate(s.runtime, io, { cwd: p }));
    expect(code).toBe(1);
    expect(out).toContain(`error: .agent/hooks/gone/hook.json: run: not found: ${join(p, ".agent/hooks/gone/run.sh")}`);
    expect(out).toContain(`error: .agent/hooks/plain/hook.json: run: not executable: ${join(p, ".agent/hooks/plain/run.sh")} (chmod +x)`);
    expect(out).toContain("error: .agent/settings.json: hooks.before_tool[0].command: interpreter python9 not found on PATH");
    expect(out).toContain(`error: .agent/settings.json: hooks.before_tool[1].command: not found: ${join(p, "scripts/missing.py")}`);
    expect(out).toContain(`error: .agent/config.toml: hooks.lifecycle.pre_tool_use[0].hooks[0].command: not found: ${join(p, ".agent/hooks/missing.sh")}`);
  });

  test("CLI-15 syntax error, bad matcher, unknown event key, async pre_tool: errors; duplicate name: warning", async () => {
    const s = sandbox();
    s.write(join(s.agentHome, "config.toml"), `[hooks\nenabled = true\n`);
    s.write(
      join(s.project, ".agent/config.toml"),
      `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "["\nhooks = [{ command = "true" }]\n[[hooks.lifecycle.on_save]]\nhooks = [{ command = "true" }]\n`,
    );
    s.write(join(s.agentHome, "hooks/x/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh", async: true }));
    for (const dir of ["a", "b"]) {
      s.write(join(s.agentHome, `hooks/${dir}/hook.json`), JSON.stringify({ name: "dup", event: "post_tool", run: "./run.sh" }));
      s.write(join(s.agentHome, `hooks/${dir}/run.sh`), SCRIPT, 0o755);
    }
    const { code, out } = await run((io) => runHooksValidate(s.runtime, io, { cwd: s.project }));
    expect(code).toBe(1);
    expect(out).toMatch(/^error: ~\/\.agent\/config\.toml:1:\d+: could not parse TOML/m);
    expect(out).toContain("error: .agent/config.toml: hooks.lifecycle.pre_tool_use[0].matcher: invalid regex");
    expect(out).toContain("error: .agent/config.toml: hooks.lifecycle.on_save: unknown lifecycle event");
    expect(out).toContain("error: ~/.agent/hooks/x/hook.json: async: async is only valid for post_tool");
    expect(out).toMatch(/^warning: ~\/\.agent\/hooks\/b\/hook\.json: name: duplicate hook name "dup" .*hooks\/b\/hook\.json wins/m);

    const warnOnly = sandbox();
    for (const dir of ["a", "b"]) {
      warnOnly.write(join(warnOnly.agentHome, `hooks/${dir}/hook.json`), JSON.stringify({ name: "dup", event: "post_tool", run: "./run.sh" }));
      warnOnly.write(join(warnOnly.agentHome, `hooks/${dir}/run.sh`), SCRIPT, 0o755);
    }
    const alone = await run((io) => runHooksValidate(warnOnly.runtime, io, { cwd: warnOnly.project }));
    expect(alone.code).toBe(0);
    expect(alone.out).toContain("ok: 1 hook in 2 files (1 warning)");
  });

  test("CLI-16 validate checks an untrusted project and runs nothing; preflight rejections are errors", async () => {
    const s = sandbox();
    const p = s.project;
    const canary = join(s.root, "canary");
    const touch = `#!/bin/sh\ntouch ${canary}\n`;
    s.write(join(p, ".agent/hooks/x/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    s.write(join(p, ".agent/hooks/x/run.sh"), touch, 0o755);
    s.write(join(p, "scripts/h.sh"), touch, 0o755);
    s.write(
      join(p, ".agent/settings.json"),
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ command: "./scripts/h.sh" }, { command: "cd scripts && ./h.sh" }] } }),
    );
    s.write(join(p, ".agent/config.toml"), `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "./scripts/h.sh" }]\n`);
    const { code, out } = await run((io) => runHooksValidate(s.runtime, io, { cwd: p }));
    expect(code).toBe(1);
    expect(out).toContain("error: .agent/settings.json: hooks.before_tool[1].command: rejected by preflight (cd)");
    expect(out.match(/^error/gm)?.length).toBe(1);
    expect(existsSync(canary)).toBe(false);
  });
});

describe("agent config show | schema", () => {
  test("CLI-20 TOOL-01 show prints merged settings with defaults and secrets redacted", async () => {
    const s = sandbox();
    s.write(
      join(s.agentHome, "config.toml"),
      `provider = "openai"\n[providers.openai]\nbase_url = "http://127.0.0.1:1"\napi_key = "sk-live-0123456789"\napi_key_env = "OPENAI_API_KEY"\n`,
    );
    s.write(join(s.agentHome, "settings.json"), JSON.stringify({ hooks: { after_tool: [{ command: "./scripts/h.sh" }] } }));
    const { code, out } = await run((io) => runConfigShow(s.runtime, io, { cwd: s.project }));
    expect(code).toBe(0);
    expect(out).not.toContain("sk-live");
    const shown = JSON.parse(out);
    expect(shown.providers.openai).toEqual({ base_url: "http://127.0.0.1:1", model: null, api_key: "[REDACTED]", api_key_env: "OPENAI_API_KEY" });
    expect(shown.provider).toBe("openai");
    expect(shown.hooks).toMatchObject({
      enabled: false,
      show_in_tui: false,
      injected_content: { show_in_transcript: false, show_in_activity_tree: false, style: "content" },
      payload: "redacted",
      timeout_seconds: 5,
      stdout_max_bytes: 8192,
      stderr_max_bytes: 8192,
      provider_context_injection: false,
      provider_context_max_bytes: 4096,
      failure_policy: "warn",
      stop_block_cap: 8,
      before_tool: [],
      after_assistant: [],
      after_reasoning: [],
    });
    expect(shown.hooks.after_tool).toEqual([{ command: "./scripts/h.sh" }]);
    expect(shown.tools.bash.absolute_paths).toBe(true);
    expect(shown.permissions.mode).toBe("default");
  });

  test("CLI-21 schema is JSON Schema; the seed 003 example validates; bad bounds fail", async () => {
    const { code, out } = await run((io) => runConfigSchema(sandbox().runtime, io));
    expect(code).toBe(0);
    const schema = JSON.parse(out);
    expect(schema.$schema).toContain("json-schema.org");
    const example = {
      hooks: {
        enabled: true,
        show_in_tui: true,
        injected_content: { show_in_transcript: false, show_in_activity_tree: false, style: "content" },
        payload: "redacted",
        timeout_seconds: 5,
        stdout_max_bytes: 8192,
        stderr_max_bytes: 8192,
        failure_policy: "warn",
        before_tool: [
          { label: "audit-before", command: "./scripts/agent-hooks/audit-jsonl.sh", include_tools: ["bash", "write", "hash_edit"] },
          {
            label: "block-dangerous-bash",
            command: "./scripts/agent-hooks/block-dangerous-bash.sh",
            payload: "full",
            failure_policy: "block",
            include_tools: ["bash"],
          },
        ],
        after_tool: [{ label: "after-log", command: "./scripts/agent-hooks/after-log.sh", failure_policy: "ignore", exclude_tools: ["read", "ffgrep"] }],
        lifecycle: { pre_tool_use: [{ matcher: "Bash", hooks: [{ command: "x", timeout_seconds: 30 }] }] },
      },
    };
    expect(validate(schema, example, schema)).toEqual([]);
    expect(validate(schema, { hooks: { timeout_seconds: 61 } }, schema).length).toBeGreaterThan(0);
    expect(validate(schema, { hooks: { before_tool: [{ command: "x", failure_policy: "maybe" }] } }, schema).length).toBeGreaterThan(0);
    expect(validate(schema, { hooks: { before_tool: [{ label: "no command" }] } }, schema).length).toBeGreaterThan(0);
  });
});

type Schema = Record<string, unknown>;

/** A small draft-07 validator for the keywords the generated schema uses. Returns error paths. */
function validate(schema: Schema, value: unknown, root: Schema, path = "$"): string[] {
  if (typeof schema.$ref === "string") {
    const target = schema.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, key) => (node as Schema)[key], root);
    return validate(target as Schema, value, root, path);
  }
  const errors: string[] = [];
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => validate(s as Schema, value, root, path).length === 0)) errors.push(`${path}: anyOf`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: enum`);
  if ("const" in schema && schema.const !== value) errors.push(`${path}: const`);
  const type = schema.type;
  const typeOk = (t: unknown): boolean =>
    t === "object"
      ? typeof value === "object" && value !== null && !Array.isArray(value)
      : t === "array"
        ? Array.isArray(value)
        : t === "integer"
          ? Number.isInteger(value)
          : t === "number"
            ? typeof value === "number"
            : t === "string"
              ? typeof value === "string"
              : t === "boolean"
                ? typeof value === "boolean"
                : t === "null"
                  ? value === null
                  : true;
  if (type !== undefined && !(Array.isArray(type) ? type.some(typeOk) : typeOk(type))) return [...errors, `${path}: type ${String(type)}`];
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(`${path}: minimum`);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(`${path}: maximum`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => errors.push(...validate(schema.items as Schema, item, root, `${path}[${i}]`)));
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in record)) errors.push(`${path}.${key}: required`);
    for (const [key, inner] of Object.entries(record)) {
      if (properties[key]) errors.push(...validate(properties[key], inner, root, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${key}: additional`);
      else if (typeof schema.additionalProperties === "object") errors.push(...validate(schema.additionalProperties as Schema, inner, root, `${path}.${key}`));
    }
  }
  return errors;
}
