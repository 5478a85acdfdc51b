// The one error-to-exit-status map (src/cli/error-exit.ts) that src/main.ts and the tests'
// in-process runner share: the stderr line and the status of each AgentError code.
import { describe, expect, test } from "bun:test";
import { reportCommandError } from "../../src/cli/error-exit.ts";
import { AgentError, type ErrorCode } from "../../src/util/errors.ts";

function report(error: unknown, argv: readonly string[] = ["run"]): { code: number; stderr: string } {
  let stderr = "";
  const code = reportCommandError(error, argv, (text) => {
    stderr += text;
  });
  return { code, stderr };
}

describe("reportCommandError", () => {
  test("each AgentError code maps to its documented exit status", () => {
    const expected: Record<ErrorCode, number> = { usage: 2, config: 1, untrusted: 1, runtime: 1, hook_blocked: 3, interrupted: 130 };
    for (const [code, status] of Object.entries(expected) as [ErrorCode, number][])
      expect([code, report(new AgentError(code, "m")).code]).toEqual([code, status]);
  });

  test("a usage error of `agent hooks test` exits 1, since its 2 means deny/block", () => {
    expect(report(new AgentError("usage", "m"), ["hooks", "test", "pre_tool"]).code).toBe(1);
    expect(report(new AgentError("usage", "m"), ["hooks", "list"]).code).toBe(2);
  });

  test("the stderr line is the rendered error; anything else is an internal error with exit 1", () => {
    expect(report(new AgentError("config", "bad value", { file: "/p/settings.json", field: "model", fix: "use a string" }))).toEqual({
      code: 1,
      stderr: "agent: /p/settings.json: model: bad value (use a string)\n",
    });
    const internal = report(new TypeError("boom"));
    expect(internal.code).toBe(1);
    expect(internal.stderr).toStartWith("agent: internal error: TypeError: boom\n");
    expect(report("text").stderr).toBe("agent: internal error: text\n");
  });
});
