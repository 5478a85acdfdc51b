// The one JSON error locator (src/config/json-position.ts), used by config parsing and by
// `agent hooks test --input` (CLI-07).
import { describe, expect, test } from "bun:test";
import { jsonErrorAt, jsonErrorPosition, lineColumnAt } from "../../src/config/json-position.ts";
import { parseJson } from "../../src/config/parse.ts";

describe("json-position", () => {
  test("valid JSON has no error position", () => {
    for (const text of ['{"a":[1,2.5e3,true,null,"x\\u0041"]}', " [] ", '"s"']) {
      expect(jsonErrorAt(text)).toBeUndefined();
      expect(jsonErrorPosition(text)).toBeNull();
    }
  });

  test("CLI-07 the first error is located with offset, line and column", () => {
    expect(jsonErrorPosition("{bad")).toBe("position 1 (line 1, column 2)");
    expect(jsonErrorPosition('{\n  "a": 1,\n  "b" 2\n}')).toBe("position 18 (line 3, column 7)");
    expect(jsonErrorAt('{"a":1}x')).toEqual({ offset: 7, message: "unexpected data after the JSON value" });
    expect(jsonErrorAt('["\\x"]')).toEqual({ offset: 2, message: "invalid escape" });
    expect(jsonErrorAt("[1,")).toEqual({ offset: 3, message: "unexpected end of input" });
    expect(lineColumnAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });

  test("config parsing reports the same place as line:column", () => {
    expect(parseJson('{\n  "a": 1,\n  "b" 2\n}')).toEqual({ ok: false, line: 3, column: 7, message: "expected ':'" });
  });

  test("input nested too deeply to scan is located, never thrown", () => {
    const deep = "[".repeat(200_000);
    const located = jsonErrorAt(deep);
    expect(located === undefined).toBe(false);
    expect(parseJson(deep).ok).toBe(false);
  });
});
