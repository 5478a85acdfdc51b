/**
 * The suite's own corpora in test/fixtures/, written by scripts/gen-fixtures.ts. Tests read only
 * these (never ../shared), so a clone anywhere runs the suite; scripts/check-shared-corpora.ts
 * runs the same checks over the workplace corpora when they exist.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface SecretLine {
  id: string;
  text: string;
  secret: string | null;
  kind: string;
}

export interface PreflightLine {
  id: string;
  cmd: string;
  expect: "accept" | "reject";
  rule?: string;
  why: string;
  absolute_paths: boolean;
}

export const FIXTURES = join(import.meta.dir, "..", "fixtures");

/** Parsed JSONL lines; a line that is not JSON fails loudly with the file and line number. */
export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.trim() !== "")
    .map(({ line, index }) => {
      try {
        return JSON.parse(line) as T;
      } catch (error) {
        throw new Error(`${path}:${index + 1}: not JSON (${String(error)}); regenerate with bun scripts/gen-fixtures.ts`);
      }
    });
}

export function secretsFixture(): SecretLine[] {
  return readJsonl<SecretLine>(join(FIXTURES, "secrets.jsonl"));
}

export function preflightFixture(): PreflightLine[] {
  return readJsonl<PreflightLine>(join(FIXTURES, "preflight.jsonl"));
}
