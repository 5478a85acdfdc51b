// A user_prompt_submit hook rewrites the prompt. claude:
// `hookSpecificOutput.updatedPrompt`; action: `{"action":"modify","prompt":"…"}`. Real processes
// print the replies; the real dialects decode them (LIFE-25, D8, DIR-37).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { actionDialect, claudeDialect } from "../../../src/hooks/dialects/index.ts";
import type { HookEventInput, ProcessRun } from "../../../src/hooks/dialects/types.ts";
import type { LifecycleHookSpec } from "../../../src/hooks/types.ts";

function spec(dialect: "claude" | "action", event: LifecycleHookSpec["event"] = "user_prompt_submit"): LifecycleHookSpec {
  return {
    label: "user_prompt_submit[0].hooks[0]",
    scope: "project",
    form: "lifecycle",
    dialect,
    event,
    source: "/p/.agent/config.toml",
    field: "hooks.lifecycle.user_prompt_submit[0].hooks[0]",
    disabled: false,
    timeoutMs: 60000,
    command: "./h.sh",
    matcher: undefined,
    matcherRegex: null,
    eventKey: "user_prompt_submit",
    groupIndex: 0,
    hookIndex: 0,
    failurePolicy: "warn",
  };
}

const input: HookEventInput = {
  event: "user_prompt_submit",
  sessionId: "s",
  transcriptPath: null,
  cwd: "/p",
  projectDir: "/p",
  permissionMode: "default",
  fields: { prompt: "fix the bug", turn_id: "turn-0" },
  context: { sessionPath: null, providerId: null, modelId: null, agentId: null, invocationMode: "print", turnId: "t", messageId: "m", subagent: false },
  strippedEnvValues: [],
};

/** Runs `script` with the dialect's stdin for `input`, as a real process. */
function run(dialect: "claude" | "action", script: string): ProcessRun {
  const stdin = (dialect === "claude" ? claudeDialect : actionDialect).encode(spec(dialect), input, { hookIndex: 0, timestamp: "t" }).stdin;
  const result = spawnSync("/bin/sh", ["-c", script], { input: stdin });
  return {
    kind: "ok",
    exit: { code: result.status, signal: result.signal },
    stdout: new Uint8Array(result.stdout),
    stderr: new Uint8Array(result.stderr),
    detail: "",
  };
}

describe("updatedPrompt", () => {
  test("claude: hookSpecificOutput.updatedPrompt rewrites the prompt, read from stdin with jq", () => {
    const reply = claudeDialect.decode(
      spec("claude"),
      input,
      run(
        "claude",
        `p=$(jq -r .prompt); jq -n --arg p "$p (in TypeScript)" '{hookSpecificOutput:{hookEventName:"UserPromptSubmit",updatedPrompt:$p,additionalContext:"ctx"}}'`,
      ),
    );
    expect(reply.failure).toBeUndefined();
    expect(reply.updatedPrompt).toBe("fix the bug (in TypeScript)");
    expect(reply.hiddenContext).toEqual(["ctx"]);
  });

  test("claude: an empty updatedPrompt keeps the prompt with a warning; another event's block is ignored (D9); other events never rewrite", () => {
    const empty = claudeDialect.decode(spec("claude"), input, run("claude", `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedPrompt":"  "}}'`));
    expect(empty.updatedPrompt).toBeUndefined();
    expect(empty.warnings).toEqual(["updatedPrompt is empty; the prompt is kept"]);
    const foreign = claudeDialect.decode(
      spec("claude"),
      input,
      run("claude", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedPrompt":"x"}}'`),
    );
    expect(foreign.updatedPrompt).toBeUndefined();
    const stop = claudeDialect.decode(
      spec("claude", "stop"),
      { ...input, event: "stop" },
      run("claude", `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedPrompt":"x"}}'`),
    );
    expect(stop.updatedPrompt).toBeUndefined();
    const wrongType = claudeDialect.decode(spec("claude"), input, run("claude", `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedPrompt":3}}'`));
    expect(wrongType.failure).toEqual({ category: "exit", detail: "schema: hookSpecificOutput.updatedPrompt" });
  });

  test("action: modify with prompt rewrites; modify without a string prompt is a failure", () => {
    const reply = actionDialect.decode(
      spec("action"),
      input,
      run("action", `p=$(jq -r .input.prompt); jq -nc --arg p "$p, then test it" '{action:"modify",prompt:$p}'`),
    );
    expect(reply.failure).toBeUndefined();
    expect(reply.updatedPrompt).toBe("fix the bug, then test it");
    const missing = actionDialect.decode(spec("action"), input, run("action", `cat >/dev/null; echo '{"action":"modify","input":{"prompt":"x"}}'`));
    expect(missing.failure).toEqual({ category: "exit", detail: "modify without prompt (a non-empty string)" });
  });
});
