// A corrupt `$AGENT_HOME/trust.json` is an error naming the file and the fix. It is never
// read as "no pins" and rewritten, which would drop every other project's pin.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/cli.ts";
import { canaries, RUN, sec29World } from "./helpers.ts";

setDefaultTimeout(60_000);

const OTHER = { version: 1, projects: { "/some/other/project": { digest: "sha256:00", trusted_at: "2024-01-01T00:00:00Z", items: {} } } };

describe("a corrupt trust.json", () => {
  for (const [name, text] of [
    ["invalid JSON", `{"version":1,"projects":{"/some/other/project":`],
    ["a schema mismatch", JSON.stringify({ ...OTHER, projects: { ...OTHER.projects, "/x": { digest: "md5:1", trusted_at: "t" } } })],
  ] as const) {
    test(`${name}: run, hooks trust and hooks list name the file; nothing runs and the file is untouched`, () => {
      const w = sec29World();
      const path = join(w.agentHome, "trust.json");
      writeFileSync(path, text);

      const run = runCli(w, RUN);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(path);
      expect(run.stderr).toContain("fix the file, or move it away");
      expect(canaries(w)).toEqual([]);

      const pin = runCli(w, ["hooks", "trust"]);
      expect(pin.code).toBe(1);
      expect(pin.stderr).toContain(path);
      expect(readFileSync(path, "utf8")).toBe(text);

      const list = runCli(w, ["hooks", "list"]);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain("untrusted");
      expect(list.stdout).toContain(path);
      expect(readFileSync(path, "utf8")).toBe(text);
    });
  }

  test("a valid trust.json keeps every other project's pin when one project is trusted", () => {
    const w = sec29World();
    const path = join(w.agentHome, "trust.json");
    writeFileSync(path, JSON.stringify(OTHER));
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    const after = JSON.parse(readFileSync(path, "utf8")) as { projects: Record<string, unknown> };
    expect(Object.keys(after.projects).sort()).toEqual(["/some/other/project", w.project].sort());
  });
});
