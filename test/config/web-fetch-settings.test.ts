// tools.web_fetch.allow: read from user config only; every entry checked, bad ones named and dropped.
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { makeWorld } from "../support/cli.ts";
import { runtimeFor, toml } from "../hooks/harness.ts";

describe("tools.web_fetch settings", () => {
  test("user hosts load; a scheme, a path or a non-string is an error naming the entry; a project setting is ignored with an error", () => {
    const w = makeWorld();
    toml(w, "user", '[tools.web_fetch]\nallow = ["docs.example.com", "https://bad.example.com", "a.example.com/path", 5, "*.python.org", "docs.example.com"]');
    toml(w, "project", '[tools.web_fetch]\nallow = ["evil.example.com"]');
    const loaded = loadConfig(runtimeFor(w), { cwd: w.project });
    expect(loaded.settings.tools.webFetch.allow).toEqual(["docs.example.com", "*.python.org"]);
    const problems = loaded.warnings.filter((item) => item.field.startsWith("tools.web_fetch")).map((item) => [item.field, item.severity, item.message]);
    expect(problems).toEqual([
      [
        "tools.web_fetch.allow[1]",
        "error",
        '"https://bad.example.com" is not a host (write it like "docs.example.com", "*.example.com" or "127.0.0.1:8080", without scheme or path); ignored',
      ],
      [
        "tools.web_fetch.allow[2]",
        "error",
        '"a.example.com/path" is not a host (write it like "docs.example.com", "*.example.com" or "127.0.0.1:8080", without scheme or path); ignored',
      ],
      ["tools.web_fetch.allow[3]", "error", "5 is not a string; ignored"],
      ["tools.web_fetch", "error", "is read from user config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead"],
    ]);
  });

  test("absent: the list is empty (the tool is off)", () => {
    const w = makeWorld();
    expect(loadConfig(runtimeFor(w), { cwd: w.project }).settings.tools.webFetch.allow).toEqual([]);
  });
});
