/**
 * Where the workplace's shared test data lives. Tests read the corpora from `../shared/corpora/`
 * next to the checkout; a CI clone elsewhere sets AGENT_SHARED_DIR (see .ci/run). Missing data is a
 * loud error, never a silently empty corpus.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export function sharedDir(): string {
  const candidates = [process.env.AGENT_SHARED_DIR, resolve(import.meta.dir, "../../../shared")].filter((dir): dir is string => typeof dir === "string" && dir !== "");
  for (const dir of candidates) if (existsSync(join(dir, "corpora"))) return dir;
  throw new Error(`shared test data not found (tried ${candidates.join(", ")}): set AGENT_SHARED_DIR to the directory holding corpora/`);
}

export function corpusPath(name: "secrets.jsonl" | "preflight.jsonl"): string {
  return join(sharedDir(), "corpora", name);
}

/** Parsed JSONL lines of a corpus file. */
export function readCorpus<T>(name: "secrets.jsonl" | "preflight.jsonl"): T[] {
  return readFileSync(corpusPath(name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
