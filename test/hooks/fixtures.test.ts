import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES_DIR, preflightCorpus, renderFixtures, secretsCorpus } from "../../scripts/gen-fixtures.ts";

describe("test/fixtures corpora", () => {
  test("the committed corpora are exactly what scripts/gen-fixtures.ts writes (regenerate after editing it)", () => {
    for (const [name, text] of Object.entries(renderFixtures())) expect(readFileSync(join(FIXTURES_DIR, name), "utf8")).toBe(text);
  });

  test("the generator is deterministic and ids are unique", () => {
    expect(secretsCorpus()).toEqual(secretsCorpus());
    expect(preflightCorpus()).toEqual(preflightCorpus());
    for (const ids of [secretsCorpus().map((l) => l.id), preflightCorpus().map((l) => l.id)]) expect(new Set(ids).size).toBe(ids.length);
  });

  test("every positive holds its secret exactly once, so the expected output is well defined", () => {
    for (const line of secretsCorpus()) if (line.secret !== null) expect(line.text.split(line.secret).length).toBe(2);
  });
});
