// docs/security.md's rule table is generated from RULES (D16: the rule set is documented with the
// security model); this keeps the two from drifting apart.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RULES } from "../../src/hooks/secrets/redact.ts";
import { REPO } from "../support/cli.ts";

const escape = (text: string): string => text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("docs/security.md redaction rules", () => {
  test("D16 the substring rule table lists exactly RULES (id and description, in priority order)", () => {
    const doc = readFileSync(join(REPO, "docs", "security.md"), "utf8");
    const table = ["| rule id | finds |", "| --- | --- |", ...RULES.map((rule) => `| \`${rule.id}\` | ${escape(rule.description)} |`)].join("\n");
    expect(doc).toContain(table);
    for (const marker of ['{"redacted":true,"kind":"credential","bytes":N}', "<redacted:tool-output>", "[REDACTED:<rule-id>]", "[REDACTED:env]"]) {
      expect(doc).toContain(marker);
    }
  });
});
