// The README's rule table is generated from RULES (D16: the rule set is documented in the README);
// this keeps the two from drifting apart.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RULES } from "../../src/hooks/secrets/redact.ts";
import { REPO } from "../support/cli.ts";

const escape = (text: string): string => text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("README ## Security", () => {
  test("D16 the substring rule table lists exactly RULES (id and description, in priority order)", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const table = ["| rule id | finds |", "| --- | --- |", ...RULES.map((rule) => `| \`${rule.id}\` | ${escape(rule.description)} |`)].join("\n");
    const section = readme.slice(readme.indexOf("\n## Security\n"), readme.indexOf("\n## Development\n"));
    expect(section).toContain(table);
    for (const marker of ['{"redacted":true,"kind":"credential","bytes":N}', "<redacted:tool-output>", "[REDACTED:<rule-id>]", "[REDACTED:env]"]) {
      expect(section).toContain(marker);
    }
  });
});
