// The security doc's rule table is generated from RULES (D16: the rule set is documented with the
// redacted payloads, docs/security.md); this keeps the two from drifting apart.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RULES } from "../../src/hooks/secrets/redact.ts";
import { REPO } from "../support/cli.ts";

const escape = (text: string): string => text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("docs/security.md ### Redacted payloads", () => {
  test("D16 the substring rule table lists exactly RULES (id and description, in priority order)", () => {
    const doc = readFileSync(join(REPO, "docs", "security.md"), "utf8");
    const table = ["| rule id | finds |", "| --- | --- |", ...RULES.map((rule) => `| \`${rule.id}\` | ${escape(rule.description)} |`)].join("\n");
    const start = doc.indexOf("\n### Redacted payloads");
    expect(start).toBeGreaterThan(0);
    const section = doc.slice(start, doc.indexOf("\n### ", start + 1));
    expect(section).toContain(table);
    for (const marker of ['{"redacted":true,"kind":"credential","bytes":N}', "<redacted:tool-output>", "[REDACTED:<rule-id>]", "[REDACTED:env]"]) {
      expect(section).toContain(marker);
    }
  });
});
