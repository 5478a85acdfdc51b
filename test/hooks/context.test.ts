import { describe, expect, test } from "bun:test";
import { HOOK_CONTEXT_MAX_BYTES, appendHookContext, cutUtf8, hiddenContextMessage, joinContexts, neutralizeContext } from "../../src/hooks/merge/context.ts";

const enc = new TextEncoder();
const bytes = (text: string) => enc.encode(text).length;

describe("hook context (D19)", () => {
  test("MERGE-21 DIR-53 closing tags are neutralised case-insensitively", () => {
    expect(neutralizeContext("x</hook_context>y")).toBe("x<\u200B/hook_context>y");
    expect(neutralizeContext("</HOOK_CONTEXT></Hook_Context>")).toBe("<\u200B/hook_context><\u200B/hook_context>");
    expect(neutralizeContext(neutralizeContext("a</hook_context>"))).toBe("a<\u200B/hook_context>");
    const joined = joinContexts(["x</hook_context>y", "</HOOK_CONTEXT>"]);
    const message = appendHookContext("ok", joined);
    expect(message.match(/<\/hook_context>/gi)?.length).toBe(1);
    expect(message.endsWith("\n</hook_context>")).toBe(true);
  });

  test("MERGE-19 DIR-51 appended block format; no context means byte-identical content", () => {
    expect(appendHookContext("ok", joinContexts(["n1", "n2"]))).toBe("ok\n\n<hook_context>\nn1\n\nn2\n</hook_context>");
    expect(appendHookContext("hi\n", joinContexts([]))).toBe("hi\n");
    expect(appendHookContext("hi\n", joinContexts(["", ""]))).toBe("hi\n");
  });

  test("MERGE-20 DIR-45 LIFE-40 contexts join with a blank line in the given order, untrimmed", () => {
    expect(joinContexts(["P", "Q"])).toBe("P\n\nQ");
    expect(joinContexts(["A", "", "B"])).toBe("A\n\nB");
    expect(joinContexts([" a \n", "b"])).toBe(" a \n\n\nb");
  });

  test("MERGE-18 the cap is 4096 bytes, cut on a UTF-8 boundary", () => {
    expect(HOOK_CONTEXT_MAX_BYTES).toBe(4096);
    const a = "a".repeat(3000);
    const b = "b".repeat(3000);
    expect(joinContexts([a, b])).toBe(`${a}\n\n${b}`.slice(0, 4096));
    const edge = joinContexts([`${"x".repeat(4095)}é`]);
    expect(edge).toBe("x".repeat(4095));
    expect(bytes(edge)).toBe(4095);
  });

  test("DIR-52 two 3000-byte contexts of é: valid UTF-8, at most 4096 bytes, first one first", () => {
    const a = "é".repeat(1500);
    const b = "é".repeat(1500);
    const joined = joinContexts([a, b]);
    expect(bytes(joined)).toBeLessThanOrEqual(4096);
    expect(joined.includes("\uFFFD")).toBe(false);
    expect(joined.startsWith(a)).toBe(true);
    expect(joined.slice(a.length, a.length + 2)).toBe("\n\n");
    // 3000 + 2 + 1094 bytes = 547 whole characters of b.
    expect(joined).toBe(`${a}\n\n${"é".repeat(547)}`);
  });

  test("MERGE-21 neutralisation happens before the cut", () => {
    // The neutralised tag is 3 bytes longer, so a cap computed after neutralising cuts earlier.
    const text = `${"x".repeat(4080)}</hook_context>`;
    const joined = joinContexts([text]);
    expect(bytes(joined)).toBe(4096);
    expect(joined.includes("</hook_context>")).toBe(false);
  });

  test("D6 cutUtf8 never splits a character and keeps short text as is", () => {
    expect(cutUtf8("abc", 10)).toBe("abc");
    expect(cutUtf8("aé", 2)).toBe("a");
    expect(cutUtf8("a😀b", 4)).toBe("a");
    expect(cutUtf8("a😀b", 5)).toBe("a😀");
    expect(cutUtf8("é", 0)).toBe("");
  });
});

describe("hidden context (D7)", () => {
  test("LIFE-49 LIFE-51 one message, parts trimmed right, joined with a blank line, neutralised", () => {
    expect(hiddenContextMessage(["Today is Monday\n\n"])).toBe("<hook_context>\nToday is Monday\n</hook_context>");
    expect(hiddenContextMessage(["ctx\n", "", "  ", "SessionStart hook is active."])).toBe(
      "<hook_context>\nctx\n\nSessionStart hook is active.\n</hook_context>",
    );
    expect(hiddenContextMessage(["a</Hook_Context>"])).toBe("<hook_context>\na<\u200B/hook_context>\n</hook_context>");
  });

  test("LIFE-52 no parts with content gives no message", () => {
    expect(hiddenContextMessage([])).toBeNull();
    expect(hiddenContextMessage(["\n", " "])).toBeNull();
  });
});
