/** Terminal columns by grapheme cluster: wide CJK, fullwidth and emoji, zero-width marks, wrapping. */
import { describe, expect, test } from "bun:test";
import { clipColumns, displayWidth, graphemes, sliceColumns, wrapColumns } from "../../src/util/display-width.ts";

describe("displayWidth", () => {
  test("ASCII one column each; CJK, kana, Hangul and fullwidth forms two", () => {
    expect(displayWidth("hello")).toBe(5);
    expect(displayWidth("日本語")).toBe(6);
    expect(displayWidth("カタカナ")).toBe(8);
    expect(displayWidth("한국어")).toBe(6);
    expect(displayWidth("ＡＢ")).toBe(4);
    expect(displayWidth("\u3000")).toBe(2);
    // Halfwidth katakana and Latin with accents stay one column.
    expect(displayWidth("ｱ")).toBe(1);
    expect(displayWidth("é")).toBe(1);
    expect(displayWidth("ideograph 𠀀 in plane 2")).toBe(23);
  });

  test("emoji: presentation emoji, VS16 sequences, ZWJ families, skin tones and flags are two columns, one character", () => {
    for (const emoji of ["😀", "❤️", "👨‍👩‍👧", "👍🏽", "🇯🇵", "🧑‍💻"]) {
      expect(graphemes(emoji)).toEqual([emoji]);
      expect(displayWidth(emoji)).toBe(2);
    }
    // Without U+FE0F a text-presentation symbol is one column.
    expect(displayWidth("❤")).toBe(1);
  });

  test("combining marks take no column of their own", () => {
    expect(displayWidth("e\u0301")).toBe(1);
    expect(graphemes("e\u0301x")).toEqual(["e\u0301", "x"]);
    expect(displayWidth("\u0301")).toBe(0);
    expect(displayWidth("a\u200bb")).toBe(2);
  });
});

describe("slicing and wrapping by columns", () => {
  test("sliceColumns never splits a character; clipColumns adds … within the width", () => {
    expect(sliceColumns("日本語", 5)).toBe("日本");
    expect(sliceColumns("a😀b", 2)).toBe("a");
    expect(clipColumns("日本語です", 7)).toBe("日本語…");
    expect(displayWidth(clipColumns("日本語です", 7))).toBeLessThanOrEqual(7);
    expect(clipColumns("short", 7)).toBe("short");
  });

  test("a wide character that does not fit at a row's end starts the next row, as a terminal wraps", () => {
    expect(wrapColumns("ab日本語cd", 5)).toEqual(["ab日", "本語c", "d"]);
    expect(wrapColumns("abcdefg", 3)).toEqual(["abc", "def", "g"]);
    expect(wrapColumns("", 10)).toEqual([""]);
    for (const row of wrapColumns("一二三四五六七八九十😀x👨‍👩‍👧", 7)) expect(displayWidth(row)).toBeLessThanOrEqual(7);
    expect(wrapColumns("一二三四五六七八九十😀x👨‍👩‍👧", 7).join("")).toBe("一二三四五六七八九十😀x👨‍👩‍👧");
  });
});
