/**
 * Tool-call list hooks under a login profile: the profile in the test HOME runs once per session,
 * its exported variables reach every list hook (which runs as `bash -c`, not a login shell), and a
 * changed profile is picked up on the next run.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type World } from "../support/cli.ts";
import { listHooks, logLines, runtimeFor, script } from "./harness.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createHookEngine, type HookEngine } from "../../src/hooks/engine.ts";
import { EVENT_FIELD_DEFAULTS } from "../../src/hooks/event-fields.ts";
import { mergeLoginEnv, parseCapture } from "../../src/hooks/handlers/login-env.ts";
import { dispatchEvent } from "../../src/hooks/dispatch.ts";

setDefaultTimeout(60_000);

function engineFor(world: World): HookEngine {
  const runtime = runtimeFor(world, { UNSET_BY_PROFILE: "set outside" });
  const loaded = loadConfig(runtime, { cwd: world.project });
  return createHookEngine(runtime, { hooks: loaded.hooks, readonlyMode: false, quietSuccessOutput: false, sinks: {} });
}

/** pre_tool for bash through the engine; `extraEnv` joins its base environment as a session's CLAUDE_ENV_FILE variables do. */
async function firePre(world: World, engine: HookEngine, extraEnv: Record<string, string> = {}): Promise<void> {
  await dispatchEvent(
    { ...engine.context, baseEnv: { ...engine.context.baseEnv, ...extraEnv } },
    {
      strippedEnvValues: engine.strippedValues,
      event: "pre_tool",
      sessionId: "sess-login",
      transcriptPath: null,
      cwd: world.project,
      projectDir: world.project,
      permissionMode: "bypass",
      tool: { name: "bash", callId: "call_1", input: { command: "ls" } },
      fields: { ...EVENT_FIELD_DEFAULTS.pre_tool },
      context: {
        sessionPath: null,
        providerId: null,
        modelId: null,
        agentId: null,
        invocationMode: "print",
        turnId: "turn-1",
        messageId: "msg-1",
        subagent: false,
      },
    },
  );
}

function profile(world: World, mark: string): void {
  const runs = join(world.root, "profile-runs");
  // Prints to stdout too: a chatty profile must not disturb the capture.
  writeFileSync(
    join(world.home, ".bash_profile"),
    [
      `echo "profile ran" >> '${runs}'`,
      `echo "welcome to the login shell"`,
      `export PROFILE_MARK='${mark}'`,
      `export PATH="${world.root}/profile-bin:$PATH"`,
      `export MULTI_LINE="a`,
      `b=c"`,
      `unset UNSET_BY_PROFILE`,
    ].join("\n") + "\n",
  );
}

describe("list hooks under a login profile", () => {
  test("TOOL-81 the profile runs once per session; its variables reach each hook; a change is picked up", async () => {
    const world = makeWorld();
    const seen = join(world.root, "seen.log");
    world.file(join(world.root, "profile-bin", "from-profile"), "#!/bin/sh\necho found\n", { executable: true });
    script(
      world,
      "scripts/show.sh",
      `printf '%s|%s|%s|%s|%s\\n' "$PROFILE_MARK" "$(from-profile)" "$AGENT_SESSION_ID" "\${UNSET_BY_PROFILE-unset}" "$(printf %s "$MULTI_LINE" | tr '\\n' '+')" >> '${seen}'`,
    );
    listHooks(world, "user", { before_tool: [{ command: "./scripts/show.sh; shopt -q login_shell && echo login >> '" + seen + "' || true" }] });
    profile(world, "one");
    const runs = join(world.root, "profile-runs");
    const engine = engineFor(world);
    try {
      await firePre(world, engine);
      await firePre(world, engine);
      await firePre(world, engine);
      expect(logLines(seen)).toEqual(Array(3).fill("one|found|sess-login|unset|a+b=c"));
      expect(logLines(runs)).toHaveLength(1);

      // A changed profile (another size) is read again before the next hook run.
      profile(world, "second");
      await firePre(world, engine);
      expect(logLines(seen).at(-1)).toBe("second|found|sess-login|unset|a+b=c");
      expect(logLines(runs)).toHaveLength(2);

      // A variable that joins the session's environment after the capture (CLAUDE_ENV_FILE) reaches the hook.
      script(world, "scripts/late.sh", `echo "late=$LATE_VAR" >> '${seen}'`);
      listHooks(world, "user", { before_tool: [{ command: "./scripts/late.sh" }] });
      const later = engineFor(world);
      await firePre(world, later);
      await firePre(world, later, { LATE_VAR: "from-env-file" });
      await later.close();
      expect(logLines(seen).slice(-2)).toEqual(["late=", "late=from-env-file"]);
    } finally {
      await engine.close();
    }
  });

  test("TOOL-81 a profile that never reaches the capture's end leaves hooks on bash -lc", async () => {
    const world = makeWorld();
    const seen = join(world.root, "seen.log");
    // `exec` replaces the login shell before the capture script runs: no marker, so no capture.
    writeFileSync(join(world.home, ".bash_profile"), `export PROFILE_MARK=lc\ncase "$BASH_EXECUTION_STRING" in *agent-login-env*) exec /bin/true;; esac\n`);
    script(world, "scripts/mark.sh", `echo "mark $PROFILE_MARK" >> '${seen}'`);
    listHooks(world, "user", { before_tool: [{ command: `shopt -q login_shell && echo login >> '${seen}'; ./scripts/mark.sh` }] });
    const engine = engineFor(world);
    try {
      await firePre(world, engine);
      await firePre(world, engine);
      expect(logLines(seen)).toEqual(["login", "mark lc", "login", "mark lc"]);
    } finally {
      await engine.close();
    }
  });

  test("parse and merge: hook variables win, the profile decides the rest, bash's own are the hook's", () => {
    const stdout = new TextEncoder().encode("chatter\u0000agent-login-env\u0000PATH=/p\u0000SHLVL=2\u0000KEEP=k\u0000A=x=y\u0000");
    const login = parseCapture(stdout);
    expect(login).toEqual({ PATH: "/p", KEEP: "k", A: "x=y" });
    expect(parseCapture(new TextEncoder().encode("no marker"))).toBeNull();
    // `base`: what the capture ran with. GONE was unset by the profile; DROPPED is not in the hook env.
    const base = { PATH: "/usr/bin", GONE: "g", DROPPED: "d", AGENT_SESSION_ID: "outer", SHLVL: "1" };
    const hook = { PATH: "/usr/bin", GONE: "g", AGENT_SESSION_ID: "inner", SHLVL: "1", CLAUDECODE: "1", LATE: "l" };
    expect(mergeLoginEnv({ ...(login ?? {}), DROPPED: "d", AGENT_SESSION_ID: "outer" }, base, hook)).toEqual({
      PATH: "/p",
      KEEP: "k",
      A: "x=y",
      AGENT_SESSION_ID: "inner",
      CLAUDECODE: "1",
      LATE: "l",
      SHLVL: "1",
    });
  });
});
