/**
 * The import graph of src/: no circles, and no arrow from a folder to one above it. The layers are
 * documented in docs/architecture.md; a new folder must be placed here and there.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
/** Bottom to top; folders on one rank may not import each other either. */
export const LAYERS: readonly (readonly string[])[] = [
  ["runtime"],
  ["util"],
  ["tools", "providers"],
  ["permissions"],
  ["session"],
  ["hooks"],
  ["trust"],
  ["config"],
  ["plugins"],
  ["mcp"],
  ["agent"],
  ["ui"],
  ["cli"],
  ["(main)"],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pattern = /(?:import|export)[^'";]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const file of sourceFiles(join(ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    const targets: string[] = [];
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] ?? match[2] ?? "";
      const target = normalize(join(dirname(file), spec));
      if (target.startsWith(join(ROOT, "src")) && target.endsWith(".ts")) targets.push(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

const folderOf = (file: string): string => {
  const parts = file.split("/");
  return parts.length > 2 ? (parts[1] ?? "") : "(main)";
};
const rankOf = (folder: string): number => LAYERS.findIndex((layer) => layer.includes(folder));

function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) {
          onStack.delete(member);
          component.push(member);
        }
      } while (member !== undefined && member !== node);
      if (component.length > 1) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the import graph of src/", () => {
  const graph = importGraph();

  test("every folder has a layer", () => {
    const unplaced = [...new Set([...graph.keys()].map(folderOf))].filter((folder) => rankOf(folder) < 0);
    expect(unplaced).toEqual([]);
  });

  test("no file imports from its own layer's sibling folders or from a layer above", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const from = folderOf(file);
        const to = folderOf(target);
        if (from !== to && rankOf(to) >= rankOf(from)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("no import circles", () => {
    expect(cycles(graph)).toEqual([]);
  });
});
