/**
 * `agent run` and the interactive session without MCP servers must not load the MCP SDK (with its
 * schema libraries): walks the static value imports from each command's module (type-only imports and dynamic `import()` excluded) and checks
 * that no file reached imports `@modelcontextprotocol/sdk` except through McpManager.start()'s
 * dynamic import of connection.ts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const STATIC_VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s*["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;

/** Files reachable from `entry` through static, non-type imports, and the packages they import. */
function staticClosure(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(STATIC_VALUE_IMPORT)) {
      const spec = match[1] ?? match[2] ?? "";
      // `import { type A, type B } from` is type-only too.
      if (/^\s*(?:import|export)\s*\{\s*(?:type\s+[^,}]+,?\s*)+\}\s*from/.test(match[0])) continue;
      if (spec.startsWith(".")) {
        const target = relative(ROOT, normalize(join(dirname(join(ROOT, file)), spec)));
        if (target.endsWith(".ts")) queue.push(target);
      } else if (!packages.has(spec)) packages.set(spec, file);
    }
  }
  return { files, packages };
}

describe("lazy MCP", () => {
  test("the static import graphs of run and interactive hold no MCP SDK module; connection.ts is loaded only dynamically", () => {
    for (const entry of ["src/cli/commands/run.ts", "src/cli/commands/interactive.ts"]) {
      const { files, packages } = staticClosure(entry);
      expect(files.has("src/mcp/manager.ts")).toBe(true);
      const sdk = [...packages.entries()].filter(([spec]) => spec.startsWith("@modelcontextprotocol/sdk"));
      expect([entry, sdk]).toEqual([entry, []]);
      expect(files.has("src/mcp/connection.ts")).toBe(false);
    }
    expect(readFileSync(join(ROOT, "src/mcp/manager.ts"), "utf8")).toContain('await import("./connection.ts")');
  });
});
