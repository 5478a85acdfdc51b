/**
 * Every decision (D17) and case id (SEC-32) cited in src/ and test/ resolves in docs/conformance.md,
 * and every case there is named by at least one test: the repository explains itself.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const CASE_PREFIXES = ["DIR", "LIFE", "TOOL", "RUN", "MERGE", "SEC", "LOOP", "CLI", "PLUS"];
const CASE = new RegExp(`\\b(?:${CASE_PREFIXES.join("|")})-\\d{2,3}\\b`, "g");
const DECISION = /\bD\d{1,2}[a-z]?\b/g;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : files(path);
    return /\.(ts|sh|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const conformance = readFileSync(join(ROOT, "docs", "conformance.md"), "utf8");
const definedCases = new Set([...conformance.matchAll(/^- ((?:[A-Z]+)-\d{2,3}) —/gm)].map((match) => match[1] ?? ""));
const definedDecisions = new Set([...conformance.matchAll(/\*\*(D\d{1,2}[a-z]?) —/g)].map((match) => match[1] ?? ""));

function cited(dirs: readonly string[], pattern: RegExp): Map<string, string> {
  const where = new Map<string, string>();
  for (const dir of dirs) {
    for (const file of files(join(ROOT, dir))) {
      for (const match of readFileSync(file, "utf8").matchAll(pattern)) where.set(match[0], file.slice(ROOT.length + 1));
    }
  }
  return where;
}

describe("docs/conformance.md", () => {
  test("defines the decisions and cases", () => {
    expect(definedDecisions.size).toBeGreaterThan(20);
    expect(definedCases.size).toBeGreaterThan(300);
  });

  test("every case id cited in src/ and test/ is defined there", () => {
    const missing = [...cited(["src", "test"], CASE)].filter(([id]) => !definedCases.has(id)).map(([id, file]) => `${id} (${file})`);
    expect(missing).toEqual([]);
  });

  test("every decision id cited in src/ and test/ is defined there", () => {
    const missing = [...cited(["src", "test"], DECISION)].filter(([id]) => !definedDecisions.has(id)).map(([id, file]) => `${id} (${file})`);
    expect(missing).toEqual([]);
  });

  test("every case is named by a test", () => {
    const named = cited(["test"], CASE);
    expect([...definedCases].filter((id) => !named.has(id))).toEqual([]);
  });
});
