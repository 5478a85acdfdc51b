import { describe, expect, test } from "bun:test";
import { isCredentialKey, redactPayload, redactText, RULES } from "../../src/hooks/secrets/redact.ts";
import { bareMisses, insertionMisses, negativesOf, positivesOf, redactionMisses, spanMisses } from "../support/corpus-checks.ts";
import { secretsFixture } from "../support/fixtures.ts";

// Our own corpus (test/fixtures/secrets.jsonl, from scripts/gen-fixtures.ts): each positive's
// `kind` is the rule that must redact it.
const corpus = secretsFixture();
const positives = positivesOf(corpus);
const negatives = negativesOf(corpus);
const ruleIds = new Set(RULES.map((rule) => rule.id));
/** Rules that find a token by its own shape, with no key or header around it. */
const BARE_RULES = new Set(
  [...RULES.map((rule) => rule.id)].filter(
    (id) => !["bearer_token", "basic_auth", "url_credentials", "cookie", "cli_credential", "generic_assignment", "netrc_password"].includes(id),
  ),
);

describe("substring detector (D16)", () => {
  test("TOOL-46 every positive loses its secret; every negative is unchanged", () => {
    expect(positives.length).toBeGreaterThan(50);
    expect(negatives.length).toBeGreaterThan(30);
    expect(redactionMisses(corpus)).toEqual([]);
  });

  test("TOOL-46 the corpus covers every rule the detector documents, and only those", () => {
    expect([...new Set(positives.map((line) => line.kind))].sort()).toEqual([...ruleIds].sort());
  });

  test("SEC-15 only the secret's span changes, to [REDACTED:<the line's rule>], and redaction is idempotent", () => {
    expect(spanMisses(corpus, { kindIsRule: true })).toEqual([]);
  });

  test("SEC-15 a positive inserted into any negative changes only the secret", () => {
    expect(insertionMisses(corpus)).toEqual([]);
  });

  test("SEC-15 bare vendor-format secrets are found inside negative text, with no 8-char run left", () => {
    expect(positives.filter((line) => BARE_RULES.has(line.kind)).length).toBeGreaterThan(30);
    expect(bareMisses(corpus, (line) => BARE_RULES.has(line.kind))).toEqual([]);
  });

  test("generalisation: token formats and phrasings that are not in the corpus", () => {
    const samples: [string, string][] = [
      ["deploy with ghp_Zq8rT2mN4vB6xC1kL9pW3sD5fG7hJ0aY2eR4 now", "ghp_Zq8rT2mN4vB6xC1kL9pW3sD5fG7hJ0aY2eR4"],
      ["runner token glrt-8xKq2Lm9Pz4Rt6Vw1Yb3 registered", "glrt-8xKq2Lm9Pz4Rt6Vw1Yb3"],
      ["SHOPIFY=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", "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"],
      ["docker login -u me --password-stdin <<< dckr_pat_Q7mV2xK9pL4rT8nB1cZ6wY3", "dckr_pat_Q7mV2xK9pL4rT8nB1cZ6wY3"],
      ["VAULT_ADDR=https://vault:8200 vault login hvs.CAESIJ8x2Kq9Lm4Pz7Rt1Vw3Yb6Nc", "hvs.CAESIJ8x2Kq9Lm4Pz7Rt1Vw3Yb6Nc"],
      ["ya29.a0AfH6SMBx7Kq2Lm9Pz4Rt6Vw1Yb3Nc8Xe5Gh0Jd", "ya29.a0AfH6SMBx7Kq2Lm9Pz4Rt6Vw1Yb3Nc8Xe5Gh0Jd"],
      ["sk-admin-9Xq2Lm4Pz7Rt1Vw3Yb6Nc8Xe5Gh0JdKf2", "sk-admin-9Xq2Lm4Pz7Rt1Vw3Yb6Nc8Xe5Gh0JdKf2"],
      ["mysql_root_pass: 'h7Gk2mQ9xLp4Vt8z'", "h7Gk2mQ9xLp4Vt8z"],
      ["Proxy-Authorization: Bearer 7fK2mQ9xLp4Vt8zR3wY6nB1c", "7fK2mQ9xLp4Vt8zR3wY6nB1c"],
      ["smtp://mailer:Zq8rT2mN4vB6@smtp.example.org:587", "Zq8rT2mN4vB6"],
      ['{"name": "DB_PASSWORD", "value": "q8Rt2Lm9Pz4Xw7Yb"}', "q8Rt2Lm9Pz4Xw7Yb"],
      ["psql --password=N3wPa55w0rdXyz host", "N3wPa55w0rdXyz"],
      ["-----BEGIN DSA PRIVATE KEY-----\nMIIBuwIBAAKBgQD\n-----END DSA PRIVATE KEY-----", "MIIBuwIBAAKBgQD"],
    ];
    for (const [text, secret] of samples) {
      const out = redactText(text);
      if (out.includes(secret)) throw new Error(`not redacted: ${text}`);
      expect(redactText(out)).toBe(out);
    }
    for (const text of [
      "secret_key_base_length = 64",
      "tokenizer = 'cl100k_base'",
      "author: Jane <jane@example.com>",
      "password_min_length=12",
      "keyPath: ~/.ssh/id_ed25519.pub",
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });

  test("SEC-19 an unterminated private key is redacted from BEGIN to the end of the string", () => {
    const text = `before\n-----BEGIN RSA PRIVATE KEY-----\n${"QUJD".repeat(1000)}`;
    expect(redactText(text)).toBe("before\n[REDACTED:private_key]");
  });

  test("SEC-18 stripped env values and their base64 become [REDACTED:env]; short ones are no needles", () => {
    const value = "Tr0ub4dor-3xyz-42";
    const b64 = Buffer.from(value).toString("base64");
    const out = redactText(`got ${value} and ${b64} and 1234`, [value, "1234"]);
    expect(out).toBe("got [REDACTED:env] and [REDACTED:env] and 1234");
  });
});

describe("redacted payload key rules (D16b)", () => {
  const opts = { envValues: [] };

  test("SEC-11 TOOL-43 command and cmd become command markers with UTF-8 bytes; other fields kept", () => {
    expect(redactPayload({ command: "rm -rf build", timeout: 30 }, opts)).toEqual({ command: { redacted: true, kind: "command", bytes: 12 }, timeout: 30 });
    expect(redactPayload({ cmd: "echo é" }, opts)).toEqual({ cmd: { redacted: true, kind: "command", bytes: 7 } });
  });

  test("SEC-12 TOOL-44 content keys, output keys at any depth, path fields kept", () => {
    expect(redactPayload({ file_path: "notes.txt", content: "héllo" }, opts)).toEqual({
      file_path: "notes.txt",
      content: { redacted: true, kind: "content", bytes: 6 },
    });
    expect(redactPayload({ file_path: "a", old_string: "x", new_string: "yy", input: "zzz" }, opts)).toEqual({
      file_path: "a",
      old_string: { redacted: true, kind: "content", bytes: 1 },
      new_string: { redacted: true, kind: "content", bytes: 2 },
      input: { redacted: true, kind: "content", bytes: 3 },
    });
    expect(redactPayload({ a: [{ b: { stdout: "12345", stderr: "", output: { x: 1 } } }], path: "p" }, opts)).toEqual({
      a: [
        {
          b: {
            stdout: { redacted: true, kind: "output", bytes: 5 },
            stderr: { redacted: true, kind: "output", bytes: 0 },
            output: { redacted: true, kind: "output", bytes: 7 },
          },
        },
      ],
      path: "p",
    });
  });

  test("SEC-13 TOOL-45 credential keys of any type become credential markers; look-alikes are kept", () => {
    const input = {
      nested: {
        api_key: "abc",
        apiKey: 12345,
        access_token: { a: 1 },
        Authorization: "Bearer x",
        password: "p",
        client_secret: "s",
        cookie: "c=1",
        account_id: "42",
        "x-api-key": "k",
        auth_code: "ac",
      },
      max_tokens: 10,
      input_tokens: 5,
      token_count: 3,
      tokenizer: "t",
      session_id: "s",
      tool_use_id: "u",
      transcript_path: "/t",
      public_key: "pk",
      author: "me",
      token_type: "bearer",
      cwd: "/w",
    };
    expect(redactPayload(input, opts)).toEqual({
      nested: {
        api_key: { redacted: true, kind: "credential", bytes: 3 },
        apiKey: { redacted: true, kind: "credential", bytes: 5 },
        access_token: { redacted: true, kind: "credential", bytes: 7 },
        Authorization: { redacted: true, kind: "credential", bytes: 8 },
        password: { redacted: true, kind: "credential", bytes: 1 },
        client_secret: { redacted: true, kind: "credential", bytes: 1 },
        cookie: { redacted: true, kind: "credential", bytes: 3 },
        account_id: { redacted: true, kind: "credential", bytes: 2 },
        "x-api-key": { redacted: true, kind: "credential", bytes: 1 },
        auth_code: { redacted: true, kind: "credential", bytes: 2 },
      },
      max_tokens: 10,
      input_tokens: 5,
      token_count: 3,
      tokenizer: "t",
      session_id: "s",
      tool_use_id: "u",
      transcript_path: "/t",
      public_key: "pk",
      author: "me",
      token_type: "bearer",
      cwd: "/w",
    });
    for (const key of ["set-cookie", "aws_account_id", "clientSecret", "session_key", "passphrase", "signature", "X_API_KEY"])
      expect(isCredentialKey(key)).toBe(true);
    for (const key of ["cache_read_tokens", "keyboard_layout", "secret_length", "token_url", "api_key_file", "monkey"])
      expect(isCredentialKey(key)).toBe(false);
  });

  test("D14 string leaves over 64 KiB become truncated markers; 64 KiB exactly is kept", () => {
    const big = "a".repeat(64 * 1024 + 1);
    expect(redactPayload({ text: big, ok: "a".repeat(64 * 1024) }, opts)).toEqual({
      text: { redacted: true, kind: "truncated", bytes: 64 * 1024 + 1 },
      ok: "a".repeat(64 * 1024),
    });
  });

  test("SEC-16 keys, nested strings with real newlines and quotes, and JSON-in-string are redacted before serialization", () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA79uP0"iUCtbY3iQpEWY0xx\n-----END RSA PRIVATE KEY-----';
    const jsonLeaf = positives.find((line) => line.id === "pos-anthropic_api_key-json")!;
    const token = "ghp_uIupAsIKGmFBzyCeSqkuKgGNzlvkAM6FUb1p";
    const out = JSON.stringify(redactPayload({ result: pem, leaf: jsonLeaf.text, map: { [token]: 1 } }, opts));
    for (const needle of [pem, JSON.stringify(pem).slice(1, -1), "MIIEpAIBAAKCAQEA79uP0", jsonLeaf.secret, token]) expect(out).not.toContain(needle);
  });

  test("SEC-17 redactPayload never mutates its input", () => {
    const input = { command: "ls", deep: { password: "x", list: ["sk-proj-QKzTlDDFKarljOAOaKT0W3jS9t-fb_863kgu4zmc6Auq"] } };
    const copy = structuredClone(input);
    redactPayload(input, opts);
    expect(input).toEqual(copy);
  });

  test("SEC-19 adversarial 1 MiB strings and 10,000-deep input are handled without stack overflow", () => {
    // Linear time is measured in bench/, not asserted here: the suite runs on a shared machine.
    const MIB = 1024 * 1024;
    expect(redactText("key=".repeat(MIB / 4))).toBe("key=".repeat(MIB / 4));
    expect(redactText("sk-".repeat(Math.ceil(MIB / 3)))).toBe("sk-".repeat(Math.ceil(MIB / 3)));
    expect(redactText("a".repeat(MIB))).toBe("a".repeat(MIB));
    expect(redactText(`-----BEGIN RSA PRIVATE KEY-----\n${"QUJD".repeat(MIB / 4)}`)).toBe("[REDACTED:private_key]");
    let deep: unknown = "sk-proj-QKzTlDDFKarljOAOaKT0W3jS9t-fb_863kgu4zmc6Auq";
    for (let i = 0; i < 10_000; i++) deep = { level: [deep] };
    let out = redactPayload(deep, opts);
    for (let i = 0; i < 10_000; i++) {
      const level = (out as { level: unknown[] }).level;
      out = level[0];
    }
    expect(out).toBe("[REDACTED:openai_api_key]");
  });

  test("RULES documents every rule id with a description", () => {
    expect(RULES.length).toBeGreaterThan(25);
    for (const rule of RULES) {
      expect(rule.id).toMatch(/^[a-z0-9_]+$/);
      expect(rule.description.length).toBeGreaterThan(10);
    }
  });
});
