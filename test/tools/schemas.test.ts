import { describe, expect, test } from "bun:test";
import { toolJsonSchema, validateToolInput } from "../../src/tools/schemas.ts";
import { BUILTIN_TOOLS, getTool } from "../../src/tools/index.ts";
import { TOOL_NAMES } from "../../src/tools/names.ts";

function failPath(tool: Parameters<typeof validateToolInput>[0], input: unknown): string | undefined {
  const result = validateToolInput(tool, input);
  return result.ok ? undefined : result.path;
}

describe("D20 tool input schemas", () => {
  test("D20 valid inputs of every tool pass and come back unchanged (no defaults added, MERGE-09)", () => {
    const cases: Array<[Parameters<typeof validateToolInput>[0], Record<string, unknown>]> = [
      ["bash", { command: "ls" }],
      ["bash", { command: "rm x", timeout: 5000, description: "d" }],
      ["bash", { command: "x", timeout: 1 }],
      ["bash", { command: "x", timeout: 600000 }],
      ["read", { file_path: "a.txt" }],
      ["read", { file_path: "a.txt", offset: 0, limit: 1 }],
      ["write", { file_path: "a.txt", content: "" }],
      ["edit", { file_path: "a", old_string: "x", new_string: "y" }],
      ["edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: true }],
      ["grep", { pattern: "x" }],
      ["grep", { pattern: "x", path: "src", glob: "*.ts", output_mode: "count", "-i": true, "-n": false, "-C": 0, head_limit: 1 }],
      ["glob", { pattern: "src/**/*.ts" }],
      ["glob", { pattern: "*.ts", path: "src" }],
      ["task", { description: "d", prompt: "p" }],
      ["task", { description: "d", prompt: "p", subagent_type: "general", cwd: "pkg" }],
    ];
    for (const [tool, input] of cases) {
      const result = validateToolInput(tool, input);
      expect(result).toEqual({ ok: true, input });
    }
    const replaced = validateToolInput("bash", { command: "ls" });
    expect(replaced.ok && Object.keys(replaced.input)).toEqual(["command"]);
  });

  test("D20 unknown keys and wrong types fail with the offending path", () => {
    expect(failPath("bash", { command: "ls", cmd: "ls" })).toBe("cmd");
    expect(failPath("bash", { command: 5 })).toBe("command");
    expect(failPath("bash", { command: "x", timeout: 0 })).toBe("timeout");
    expect(failPath("bash", { command: "x", timeout: 600001 })).toBe("timeout");
    expect(failPath("bash", { command: "x", timeout: 1.5 })).toBe("timeout");
    expect(failPath("bash", { command: "x", timeout: "30" })).toBe("timeout");
    expect(failPath("read", { file_path: "a", offset: -1 })).toBe("offset");
    expect(failPath("read", { file_path: "a", limit: 0 })).toBe("limit");
    expect(failPath("read", { path: "a" })).toBeDefined();
    expect(failPath("write", { file_path: "a" })).toBe("content");
    expect(failPath("edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: "yes" })).toBe("replace_all");
    expect(failPath("grep", { pattern: "x", output_mode: "lines" })).toBe("output_mode");
    expect(failPath("grep", { pattern: "x", "-C": -1 })).toBe("-C");
    expect(failPath("grep", { pattern: "x", head_limit: 0 })).toBe("head_limit");
    expect(failPath("glob", { pattern: "*", recursive: true })).toBe("recursive");
    expect(failPath("task", { description: "d" })).toBe("prompt");
    expect(failPath("task", { description: "d", prompt: "p", model: "x" })).toBe("model");
  });

  test("LOOP-02 DIR-46 an empty object or a non-object fails the bash schema", () => {
    const empty = validateToolInput("bash", {});
    expect(empty.ok).toBe(false);
    if (!empty.ok) {
      expect(empty.path).toBe("command");
      expect(empty.message).toContain("command");
    }
    for (const bad of [null, "ls", 5, [], undefined]) expect(validateToolInput("bash", bad).ok).toBe(false);
  });

  test("D20 JSON schemas for providers are strict objects with the required keys", () => {
    expect(toolJsonSchema("bash")).toMatchObject({
      type: "object",
      required: ["command"],
      additionalProperties: false,
      properties: { timeout: { type: "integer", minimum: 1, maximum: 600000 } },
    });
    expect(toolJsonSchema("grep")).toMatchObject({ required: ["pattern"], properties: { output_mode: { enum: ["content", "files_with_matches", "count"] } } });
    expect(toolJsonSchema("edit")).toMatchObject({ required: ["file_path", "old_string", "new_string"] });
    expect(toolJsonSchema("task")).toMatchObject({ required: ["description", "prompt"] });
    expect(toolJsonSchema("read")).not.toHaveProperty("$schema");
  });

  test("D20 registry: every canonical tool but task is built in, parameters match the schema", () => {
    expect(BUILTIN_TOOLS.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES.filter((name) => name !== "task").sort());
    expect(getTool("task")).toBeUndefined();
    for (const tool of BUILTIN_TOOLS) {
      expect(getTool(tool.name)).toBe(tool);
      expect(tool.parameters).toEqual(toolJsonSchema(tool.name));
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });
});
