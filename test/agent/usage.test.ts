// Usage totals, cost from configured prices, context windows (configured, then defaults by model
// name) and the compaction threshold; git facts when git cannot be found.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { addUsage, compactionThresholdOf, contextWindowOf, costOf, emptyUsage } from "../../src/agent/usage.ts";
import { gitFacts } from "../../src/agent/environment.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import { makeWorld, runSync } from "../support/cli.ts";

describe("usage", () => {
  test("input excludes the cached parts the provider reported; every field sums", () => {
    const totals = emptyUsage();
    addUsage(totals, { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 600, cacheWriteTokens: 300 });
    addUsage(totals, { inputTokens: 50, outputTokens: 5 });
    expect(totals).toEqual({ input: 150, output: 15, cacheRead: 600, cacheWrite: 300 });
  });

  test("cost needs a price; cache prices default to the input price", () => {
    const totals = { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 };
    expect(costOf(totals, undefined)).toBeNull();
    expect(costOf(totals, { contextWindow: 1000 })).toBeNull();
    expect(costOf(totals, { inputPrice: 3, outputPrice: 15, cacheReadPrice: 0.3, cacheWritePrice: 3.75 })).toBe(22.05);
    expect(costOf(totals, { inputPrice: 1, outputPrice: 2 })).toBe(5);
  });

  test("context windows: configured first, else the longest matching default prefix; 80% starts compaction", () => {
    expect(contextWindowOf("claude-sonnet-4-5", undefined)).toBe(200_000);
    expect(contextWindowOf("qwen2.5-coder:7b", undefined)).toBe(32_768);
    expect(contextWindowOf("llama3.1:8b", undefined)).toBe(131_072);
    expect(contextWindowOf("llama3:8b", undefined)).toBe(8_192);
    expect(contextWindowOf("openai/gpt-4o-mini", undefined)).toBe(128_000);
    expect(contextWindowOf("qwen2.5-coder:7b", { "qwen2.5-coder:7b": { contextWindow: 65_536 } })).toBe(65_536);
    expect(contextWindowOf("my-own-model", undefined)).toBeUndefined();
    expect(compactionThresholdOf(200_000)).toBe(160_000);
    expect(compactionThresholdOf(undefined)).toBeUndefined();
  });
});

describe("git facts", () => {
  test("read through the runtime inside a work tree; null when git is not on PATH", async () => {
    const w = makeWorld({ git: false });
    w.file("a.txt", "a\n");
    runSync(["git", "init", "-q"], w.project);
    const runtime = createRuntime();
    const facts = await gitFacts({ ...runtime, env: () => ({ ...runtime.env(), HOME: w.home }) }, w.project);
    expect(facts?.status).toEqual(["?? a.txt"]);
    expect(facts?.commits).toEqual([]);
    const noGit = await gitFacts({ ...runtime, env: () => ({ PATH: join(w.root, "empty-bin"), HOME: w.home }) }, w.project);
    expect(noGit).toBeNull();
  });
});
