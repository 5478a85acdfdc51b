// The permission gate in real sessions (D8, D24): pre_tool decisions, rules, modes and
// permission_request hooks, through `agent run` with the script provider and real hook processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { group, lastJson, logTo, ofType, readLog, recordsOf, replyWith, runScriptInProcess, sessionOf } from "./support.ts";

const PR_ALLOW = { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } };

function settings(world: World, value: Record<string, unknown>): void {
  world.file(".agent/settings.json", JSON.stringify(value));
}

function delivered(world: World, result: { stdout: string }): string[] {
  return ofType(recordsOf(world, { code: 0, stderr: "", stdout: result.stdout }), "tool_result_delivered").map((record) => String(record.content));
}

function bashOnce(world: World, command: string): void {
  writeScript(world, [{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "ok" }]);
}

/** `agent run` with the script provider in default mode and without `--trust`: project rules load only once trusted. */
const UNTRUSTED_DEFAULT_RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "default", "--output-format", "json", "go"];

describe("permission gate in a session", () => {
  test("LOOP-08 LIFE-34 a lifecycle allow skips the ask; an ask rule still asks; a hook dir allow is no objection", async () => {
    const w = makeWorld();
    bashOnce(w, "echo ran");
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [group([replyWith(w, { hookSpecificOutput: { permissionDecision: "allow" } }), logTo(w, "later.log")])],
          permission_request: [group([logTo(w, "pr.log")])],
        },
      },
    });
    const r = await runScriptInProcess(w, "default");
    expect(r.code).toBe(0);
    expect(delivered(w, r)).toEqual(["ran\n"]);
    expect(readLog(w, "pr.log")).toHaveLength(0);
    // LIFE-34: later pre hooks still run after an allow.
    expect(readLog(w, "later.log")).toHaveLength(1);

    // A configured ask rule beats the hook's allow: the gate asks, so permission_request fires.
    settings(w, {
      permissions: { ask: ["bash(echo*)"] },
      hooks: {
        lifecycle: {
          pre_tool_use: [group([replyWith(w, { hookSpecificOutput: { permissionDecision: "allow" } })])],
          permission_request: [group([logTo(w, "pr.log")])],
        },
      },
    });
    const asked = await runScriptInProcess(w, "default");
    expect(asked.code).toBe(0);
    expect(readLog(w, "pr.log")).toHaveLength(1);
    expect(delivered(w, asked)[0]).toContain("needs approval");

    // A hook dir `{"action":"allow"}` is only "no objection": the ask stays.
    const w2 = makeWorld();
    bashOnce(w2, "touch ran");
    w2.file(".agent/hooks/ok/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w2.file(".agent/hooks/ok/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"allow"}'\n`, { executable: true });
    w2.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { permission_request: [group([logTo(w2, "pr.log")])] } } }));
    const dir = await runScriptInProcess(w2, "default");
    expect(dir.code).toBe(0);
    expect(readLog(w2, "pr.log")).toHaveLength(1);
    expect(delivered(w2, dir)[0]).toContain("needs approval");
  });

  test("LIFE-34 LIFE-35 a later deny still denies, a deny rule beats a hook allow, a deny wins in bypass", async () => {
    const w = makeWorld();
    bashOnce(w, "echo ran");
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [
            group([
              replyWith(w, { hookSpecificOutput: { permissionDecision: "allow" } }),
              replyWith(w, { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "nope" } }),
              logTo(w, "after-deny.log"),
            ]),
          ],
        },
      },
    });
    for (const mode of ["default", "bypass"]) {
      const r = await runScriptInProcess(w, mode);
      expect(r.code).toBe(0);
      expect(delivered(w, r)).toEqual(["nope"]);
    }
    // LIFE-35 (D13): the rest of the deny's own batch runs beside it (once per run), and the deny still wins.
    expect(readLog(w, "after-deny.log")).toHaveLength(2);

    const w2 = makeWorld();
    w2.file("x", "x");
    bashOnce(w2, "rm x");
    settings(w2, {
      permissions: { deny: ["bash(rm*)"] },
      hooks: { lifecycle: { pre_tool_use: [group([replyWith(w2, { hookSpecificOutput: { permissionDecision: "allow" } })])] } },
    });
    const denied = await runScriptInProcess(w2, "default");
    expect(denied.code).toBe(0);
    expect(existsSync(join(w2.project, "x"))).toBe(true);
    expect(delivered(w2, denied)[0]).toContain("bash(rm*)");
  });

  test("LOOP-09 in bypass mode a hook dir deny and a failing block-policy list hook still stop the tool", async () => {
    const w = makeWorld();
    bashOnce(w, `touch '${join(w.root, "ran")}'`);
    w.file(".agent/hooks/no/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/no/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"deny","reason":"no"}'\n`, { executable: true });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(delivered(w, r)).toEqual(["no"]);

    const w2 = makeWorld();
    bashOnce(w2, `touch '${join(w2.root, "ran")}'`);
    w2.file("fail.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    settings(w2, { hooks: { enabled: true, before_tool: [{ label: "g", command: "./fail.sh", failure_policy: "block" }] } });
    const blocked = await runScriptInProcess(w2, "bypass");
    expect(blocked.code).toBe(0);
    expect(existsSync(join(w2.root, "ran"))).toBe(false);
    expect(delivered(w2, blocked)).toEqual(["Tool call blocked by local hook policy."]);
  });

  test("LOOP-10 LIFE-36 a hook ask asks even when --allow matches; undecided it is denied; a later deny beats it", async () => {
    const w = makeWorld();
    bashOnce(w, "ls");
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [group([replyWith(w, { hookSpecificOutput: { permissionDecision: "ask" } })])],
          permission_request: [group([logTo(w, "pr.log")])],
        },
      },
    });
    const r = await runScriptInProcess(w, "default", ["--allow", "bash(ls*)"]);
    expect(r.code).toBe(0);
    expect(readLog(w, "pr.log")).toHaveLength(1);
    const text = delivered(w, r)[0] ?? "";
    expect(text).toContain("needs approval");
    expect(text).toContain("non-interactive");
    expect(r.stderr).toContain("needs approval");

    // permission_request hooks decide the ask.
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [group([replyWith(w, { hookSpecificOutput: { permissionDecision: "ask" } })])],
          permission_request: [group([replyWith(w, PR_ALLOW)])],
        },
      },
    });
    const allowed = await runScriptInProcess(w, "default", ["--allow", "bash(ls*)"]);
    expect(ofType(recordsOf(w, allowed), "tool_result")[0]?.success).toBe(true);

    // A later hook's deny beats the ask: no permission_request.
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [
            group([
              replyWith(w, { hookSpecificOutput: { permissionDecision: "ask" } }),
              replyWith(w, { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "later no" } }),
            ]),
          ],
          permission_request: [group([logTo(w, "pr2.log")])],
        },
      },
    });
    const later = await runScriptInProcess(w, "default");
    expect(delivered(w, later)).toEqual(["later no"]);
    expect(readLog(w, "pr2.log")).toHaveLength(0);
  });

  test("LOOP-13 a hook's ask under agent run gives the model the hook's reason, not an --allow that is already there", async () => {
    const w = makeWorld();
    bashOnce(w, "touch t");
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [
            group([replyWith(w, { hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "deploys need the release manager" } })]),
          ],
        },
      },
    });
    const r = await runScriptInProcess(w, "default", ["--allow", "bash(touch*)"]);
    expect(r.code).toBe(0);
    const text = delivered(w, r)[0] ?? "";
    expect(text).toContain("deploys need the release manager");
    expect(text).toContain("non-interactive");
    expect(text).not.toContain("--allow");
  });

  test("LOOP-11 LIFE-54 permission_request fires only when the gate would ask a person", async () => {
    const w = makeWorld();
    bashOnce(w, "touch t");
    const hooks = { lifecycle: { permission_request: [group([logTo(w, "pr.log")])] } };
    settings(w, { hooks });
    await runScriptInProcess(w, "default");
    expect(readLog(w, "pr.log")).toHaveLength(1);
    await runScriptInProcess(w, "default", ["--allow", "bash(touch*)"]);
    await runScriptInProcess(w, "bypass");
    expect(readLog(w, "pr.log")).toHaveLength(1);
    // A read-only command is allowed without a question, so nobody is asked either.
    bashOnce(w, "ls");
    await runScriptInProcess(w, "default");
    expect(readLog(w, "pr.log")).toHaveLength(1);
    bashOnce(w, "touch t");

    settings(w, { permissions: { deny: ["bash(touch*)"] }, hooks });
    await runScriptInProcess(w, "default");
    expect(readLog(w, "pr.log")).toHaveLength(1);

    // A write in readonly mode is denied outright. (permission_request is a tool event: in readonly
    // mode only fail-closed hooks run, so this logging hook uses policy block to be eligible.)
    settings(w, { hooks: { lifecycle: { permission_request: [group([{ command: logTo(w, "pr.log"), failure_policy: "block" }])] } } });
    writeScript(w, [{ tool_calls: [{ name: "write", arguments: { file_path: "w.txt", content: "x" } }] }]);
    const ro = await runScriptInProcess(w, "readonly");
    expect(ro.code).toBe(0);
    expect(existsSync(join(w.project, "w.txt"))).toBe(false);
    expect(readLog(w, "pr.log")).toHaveLength(1);

    // After a pre_tool deny.
    bashOnce(w, "rm x");
    settings(w, { hooks: { lifecycle: { ...hooks.lifecycle, pre_tool_use: [group([replyWith(w, { decision: "block", reason: "no rm" })])] } } });
    const denied = await runScriptInProcess(w, "default");
    expect(delivered(w, denied)).toEqual(["no rm"]);
    expect(readLog(w, "pr.log")).toHaveLength(1);
  });

  test("LOOP-12 LIFE-55 LIFE-56 permission_request payload, allow, deny with message, updatedInput", async () => {
    const w = makeWorld();
    bashOnce(w, "touch t");
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [group([logTo(w, "pre.log")])],
          permission_request: [group([replyWith(w, PR_ALLOW, "pr.log"), logTo(w, "second.log")])],
        },
      },
    });
    const r = await runScriptInProcess(w, "default");
    expect(r.code).toBe(0);
    const payload = readLog(w, "pr.log")[0] ?? {};
    expect(payload).toMatchObject({ hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "touch t" } });
    expect(Array.isArray(payload.permission_suggestions)).toBe(true);
    expect(ofType(recordsOf(w, r), "tool_result")[0]?.success).toBe(true);
    // LIFE-55: the first decision in declared order wins; the second command of the group (one concurrent batch, D13) ran beside it.
    expect(readLog(w, "second.log")).toHaveLength(1);

    for (const behavior of ["deny", "Deny"]) {
      settings(w, {
        hooks: {
          lifecycle: {
            permission_request: [
              group([replyWith(w, { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior, message: "nope" } } })]),
            ],
          },
        },
      });
      const denied = await runScriptInProcess(w, "default");
      expect(delivered(w, denied)).toEqual(["nope"]);
    }

    // updatedInput, inside decision (LOOP-12) or beside it (LIFE-56); pre_tool hooks are not re-run.
    const variants = [
      { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "echo approved" } } } },
      { hookSpecificOutput: { hookEventName: "PermissionRequest", updatedInput: { command: "echo approved" }, decision: { behavior: "allow" } } },
    ];
    for (const reply of variants) {
      settings(w, { hooks: { lifecycle: { pre_tool_use: [group([logTo(w, "pre2.log")])], permission_request: [group([replyWith(w, reply)])] } } });
      const before = readLog(w, "pre2.log").length;
      const changed = await runScriptInProcess(w, "default");
      const records = recordsOf(w, changed);
      expect(ofType(records, "tool_result")[0]).toMatchObject({ input: { command: "echo approved" }, content: "approved\n", success: true });
      expect(readLog(w, "pre2.log").length).toBe(before + 1);
    }
  });

  test("LOOP-14 LIFE-57 updatedPermissions: a session rule, a project rule that re-pins trust, userSettings ignored", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "git stash list" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "git stash list -n 1" } }] },
      { text: "ok" },
    ]);
    const rule = (destination: string) => ({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "allow",
          updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git stash*" }], behavior: "allow", destination }],
        },
      },
    });
    settings(w, { hooks: { lifecycle: { permission_request: [group([replyWith(w, rule("session"), "pr.log")])] } } });
    const r = await runScriptInProcess(w, "default");
    expect(r.code).toBe(0);
    expect(readLog(w, "pr.log")).toHaveLength(1);
    // (`git stash` itself may fail in this bare .git; what matters is that the gate let it run.)
    expect(delivered(w, r).filter((text) => text.includes("needs approval"))).toEqual([]);

    // userSettings: a warning, and the entry is ignored (so the second call asks again).
    settings(w, { hooks: { lifecycle: { permission_request: [group([replyWith(w, rule("userSettings"), "pr-user.log")])] } } });
    const user = await runScriptInProcess(w, "default");
    expect(user.stderr).toContain("userSettings");
    expect(readLog(w, "pr-user.log")).toHaveLength(2);

    // projectSettings: written to .agent/settings.json, trust re-pinned, applies to the next session.
    settings(w, { hooks: { lifecycle: { permission_request: [group([replyWith(w, rule("projectSettings"), "pr-project.log")])] } } });
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "git stash list" } }] }, { text: "ok" }]);
    const first = await runCliInProcess(w, UNTRUSTED_DEFAULT_RUN);
    expect(first.code).toBe(0);
    const saved = JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8"));
    expect(saved.permissions.allow).toEqual(["bash(git stash*)"]);
    const second = await runCliInProcess(w, UNTRUSTED_DEFAULT_RUN);
    expect(second.code).toBe(0);
    expect(readLog(w, "pr-project.log")).toHaveLength(1);
    expect(delivered(w, second)[0]).not.toContain("needs approval");
  });

  test("LOOP-14 D17 a project rule written during a --trust run does not turn into lasting trust", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "git stash list" } }] }, { text: "ok" }]);
    const update = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git stash*" }], behavior: "allow", destination: "projectSettings" };
    settings(w, {
      hooks: {
        lifecycle: {
          permission_request: [
            group([
              replyWith(w, { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedPermissions: [update] } } }),
            ]),
          ],
        },
      },
    });
    expect((await runScriptInProcess(w, "default")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8")).permissions.allow).toEqual(["bash(git stash*)"]);
    const next = await runCliInProcess(w, ["run", "--provider", "script", "--script", "script.json", "go"]);
    expect(next.code).toBe(1);
    expect(next.stderr).toContain("agent hooks trust");
  });

  test("LIFE-58 a permission_request deny with interrupt stops the session: exit 3", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] }, { text: "never" }]);
    settings(w, {
      hooks: {
        lifecycle: {
          permission_request: [
            group([
              replyWith(w, { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "halt", interrupt: true } } }),
            ]),
          ],
        },
      },
    });
    const r = await runScriptInProcess(w, "default");
    expect(r.code).toBe(3);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "hook_blocked", is_error: true, turns: 1 });
    expect(r.stderr).toContain("halt");
  });

  test("DIR-48 a pre_tool deny in default mode: no prompt, no permission_request, a rejected call with context", async () => {
    const w = makeWorld();
    bashOnce(w, `touch '${join(w.root, "ran")}'`);
    w.file(".agent/hooks/no/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/no/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"deny","reason":"not here","context":"ask the owner"}'\n`, {
      executable: true,
    });
    settings(w, { hooks: { lifecycle: { permission_request: [group([logTo(w, "pr.log")])] } } });
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "default", "--trust", "go"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(readLog(w, "pr.log")).toHaveLength(0);
    expect(r.stderr).toContain("⎿ rejected: not here");
    const records = ofType(sessionOf(w), "tool_result_delivered");
    expect(records[0]?.content).toBe("not here\n\n<hook_context>\nask the owner\n</hook_context>");
  });

  test("DIR-49 LOOP-05 the gate judges the modified input; the UI shows it and the tool_call record keeps the original", async () => {
    const w = makeWorld();
    w.file("x/keep", "k");
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "rm -rf x" } }] }, { text: "ok" }]);
    w.file(".agent/hooks/m/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/m/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"modify","input":{"command":"echo safe"}}'\n`, { executable: true });
    settings(w, { permissions: { deny: ["bash(rm*)"] } });
    const r = await runCliInProcess(w, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "default",
      "--allow",
      "bash(echo *)",
      "--trust",
      "go",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("● bash: echo safe");
    expect(r.stderr).not.toContain("rm -rf x");
    const records = sessionOf(w);
    expect(ofType(records, "tool_call")[0]?.input).toEqual({ command: "rm -rf x" });
    expect(ofType(records, "tool_result")[0]).toMatchObject({ input: { command: "echo safe" }, content: "safe\n" });

    w.file(".agent/hooks/m/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"modify","input":{"command":"rm -rf x"}}'\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "ls" } }] }, { text: "ok" }]);
    const denied = await runScriptInProcess(w, "default");
    expect(existsSync(join(w.project, "x/keep"))).toBe(true);
    expect(delivered(w, denied)[0]).toContain("bash(rm*)");
  });
});
