// Netrc passwords and Discord bot tokens are redacted (D16), with few false
// positives; affected_paths carry the same redaction as the request path they come from.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RULES, redactText } from "../../src/hooks/secrets/redact.ts";
import { findSecrets } from "../../src/hooks/secrets/rules.ts";
import { affectedPaths } from "../../src/hooks/affected-paths.ts";
import { createRuntime } from "../../src/runtime/index.ts";

const b64 = (text: string): string => Buffer.from(text).toString("base64").replace(/=+$/, "");
/** A Discord-shaped bot token for a numeric id (made up: the HMAC part is arbitrary). */
const discord = (id: string, tail = "Xk9_a1B2c3D4e5F6g7H8i9J0kLmN-pQ"): string => `${b64(id)}.GhT3kA.${tail}`;

describe("discord_bot_token", () => {
  test("ids of 17 to 20 digits, as a header, an env line, JSON and a bare word", () => {
    for (const id of ["81234567890123456", "812345678901234567", "1123456789012345678", "11234567890123456789"]) {
      const token = discord(id);
      for (const text of [`Authorization: Bot ${token}`, `DISCORD_TOKEN=${token}`, `{"token":"${token}"}`, `client.login("${token}")`, token]) {
        const out = redactText(text);
        expect(out).not.toContain(token);
        expect(out).toContain("[REDACTED:");
      }
      expect(redactText(`client.login("${token}")`)).toBe('client.login("[REDACTED:discord_bot_token]")');
    }
    // A 38-character HMAC part (newer tokens) too.
    expect(redactText(`x ${discord("812345678901234567", "a".repeat(19) + "B1".repeat(9) + "_")} y`)).toBe("x [REDACTED:discord_bot_token] y");
  });

  test("look-alikes are kept: the id must decode to digits, the parts must have their lengths", () => {
    const negatives = [
      `${b64("hello world, this is!")}.GhT3kA.${"x".repeat(30)}`, // decodes to text, not digits
      `${b64("012345678901234567")}.GhT3kA.${"x".repeat(30)}`, // leading 0: no Discord id
      `${b64("812345678901234567")}.GhT3k.${"x".repeat(30)}`, // 5-character middle part
      `${b64("812345678901234567")}.GhT3kA.${"x".repeat(26)}`, // HMAC part too short
      `prefix${b64("812345678901234567")}.GhT3kA.${"x".repeat(30)}`, // id run longer than an id
      "my.package.name.v1.2.3 and com.example.app.MainActivity.onCreate",
      "MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.xyz",
      "sha256.abcdef.0123456789abcdef0123456789abcdef",
    ];
    for (const text of negatives) expect(findSecrets(text).filter((s) => s.rule === "discord_bot_token")).toEqual([]);
  });
});

describe("netrc_password", () => {
  test("one-line and multi-line entries, default entries, quoted values, one-character passwords", () => {
    expect(redactText("machine h login u password p")).toBe("machine h login u password [REDACTED:netrc_password]");
    expect(redactText("machine api.example.com login alice password s3cr3t-Pass")).toBe(
      "machine api.example.com login alice password [REDACTED:netrc_password]",
    );
    expect(redactText("machine git.example.com\n  login bob\n  password hunter2\nmachine other\n")).toBe(
      "machine git.example.com\n  login bob\n  password [REDACTED:netrc_password]\nmachine other\n",
    );
    expect(redactText("machine h\tlogin u\taccount a\tpassword p4ss")).toBe("machine h\tlogin u\taccount a\tpassword [REDACTED:netrc_password]");
    expect(redactText("machine h password onlypass")).toBe("machine h password [REDACTED:netrc_password]");
    expect(redactText("default login anonymous password user@site")).toBe("default login anonymous password [REDACTED:netrc_password]");
    expect(redactText('machine h login u password "with space"')).toBe('machine h login u password "[REDACTED:netrc_password]"');
    expect(redactText("$ cat ~/.netrc\nmachine h login u password p\n$ ")).toBe("$ cat ~/.netrc\nmachine h login u password [REDACTED:netrc_password]\n$ ");
  });

  test("prose and other syntaxes are left to their own rules or kept", () => {
    const kept = [
      "The password field must be at least 12 characters and contain a digit.",
      "Go to the login page password reset link.",
      "Reset your password here",
      "password",
      "machine learning password",
      "machine h login u password $NETRC_PASSWORD",
      "machine h login u password <password>",
      "machine h login u password = x",
      "--password",
    ];
    for (const text of kept) expect(findSecrets(text).filter((s) => s.rule === "netrc_password")).toEqual([]);
  });

  test("redaction stays idempotent and the rules are listed", () => {
    for (const text of ["machine h login u password p", `t ${discord("812345678901234567")}`]) {
      const once = redactText(text);
      expect(redactText(once)).toBe(once);
    }
    const ids = RULES.map((rule) => rule.id);
    expect(ids).toContain("netrc_password");
    expect(ids).toContain("discord_bot_token");
  });

  test("adversarial repeats stay linear in output too (no span explosion, no throw)", () => {
    const text = "login u password p ".repeat(50_000);
    expect(redactText(text)).toBe(text); // no machine/default: not netrc
    const entries = "machine h login u password p\n".repeat(20_000);
    expect(findSecrets(entries).length).toBe(20_000);
  });
});

describe("affected_paths redaction", () => {
  test("the redact option rewrites the reported path, after the safety checks on the real one", () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "agent-ap-")));
    const fs = createRuntime().fs;
    const token = "ghp_7T7zSAqhEAH8gSLLziAWKPkjXoldIk3n8y8T";
    const path = `dump/${token}.txt`;
    expect(affectedPaths(fs, "read", { file_path: path }, cwd)).toEqual([{ path, kind: "read_target", source: "request.file_path" }]);
    expect(affectedPaths(fs, "read", { file_path: path }, cwd, { redact: (p) => redactText(p) })).toEqual([
      { path: "dump/[REDACTED:github_pat].txt", kind: "read_target", source: "request.file_path" },
    ]);
    // A path that fails the checks is still left out, redacted or not.
    expect(affectedPaths(fs, "read", { file_path: `../${token}` }, cwd, { redact: (p) => redactText(p) })).toEqual([]);
  });
});
