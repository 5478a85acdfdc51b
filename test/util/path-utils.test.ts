import { describe, expect, test } from "bun:test";
import {
  basenamePath,
  dirnamePath,
  isAbsolutePath,
  isInside,
  isWindowsPath,
  joinPath,
  normalizePath,
  relativeInside,
  resolvePath,
  rootOf,
} from "../../src/util/path-utils.ts";

describe("POSIX paths", () => {
  test("normalise, join, resolve", () => {
    expect(normalizePath("/a//b/./c/../d/")).toBe("/a/b/d");
    expect(normalizePath("/../..")).toBe("/");
    expect(normalizePath("a/../../b")).toBe("../b");
    expect(normalizePath("")).toBe(".");
    expect(joinPath("/work", "src", "a.ts")).toBe("/work/src/a.ts");
    expect(resolvePath("/work", "../etc")).toBe("/etc");
    expect(resolvePath("/work", "/etc/passwd")).toBe("/etc/passwd");
  });

  test("a backslash is a file-name character, not a separator", () => {
    expect(normalizePath("/work/a\\..\\b")).toBe("/work/a\\..\\b");
    expect(resolvePath("/work", "a\\b")).toBe("/work/a\\b");
    expect(basenamePath("/work/a\\b")).toBe("a\\b");
    expect(isInside("/work/a\\..\\..\\x", "/work")).toBe(true);
  });

  test("dirname, basename, inside", () => {
    expect(dirnamePath("/a/b")).toBe("/a");
    expect(dirnamePath("/a")).toBe("/");
    expect(dirnamePath("/")).toBe("/");
    expect(dirnamePath("a")).toBe(".");
    expect(basenamePath("/a/b.txt")).toBe("b.txt");
    expect(basenamePath("/")).toBe("");
    expect(isInside("/work/x", "/work")).toBe(true);
    expect(isInside("/workshop", "/work")).toBe(false);
    expect(isInside("/anything", "/")).toBe(true);
    expect(isInside("/Work/x", "/work")).toBe(false); // POSIX compares case
    expect(relativeInside("/work/a/b", "/work")).toBe("a/b");
    expect(relativeInside("/work", "/work")).toBe(".");
    expect(relativeInside("/a/b", "/")).toBe("a/b");
    expect(relativeInside("/other", "/work")).toBeUndefined();
    expect(isAbsolutePath("/x")).toBe(true);
    expect(isAbsolutePath("x/y")).toBe(false);
    expect(isWindowsPath("/x")).toBe(false);
  });
});

describe("Windows drive paths", () => {
  test("both separators, written with backslashes, drive letter upper-cased", () => {
    expect(normalizePath("C:\\Users\\ana\\proj")).toBe("C:\\Users\\ana\\proj");
    expect(normalizePath("c:/Users/ana//proj/./src/..")).toBe("C:\\Users\\ana\\proj");
    expect(normalizePath("C:\\a/b\\c/")).toBe("C:\\a\\b\\c");
    expect(normalizePath("C:\\..\\..")).toBe("C:\\");
    expect(normalizePath("C:")).toBe("C:\\");
    expect(isWindowsPath("C:\\x")).toBe(true);
    expect(isAbsolutePath("D:/x")).toBe(true);
    // `C:foo` is a POSIX file name (Windows would read it as drive-relative); it stays relative.
    expect(isAbsolutePath("C:foo")).toBe(false);
  });

  test("the drive root is its own parent, so a walk upwards ends", () => {
    expect(dirnamePath("C:\\x\\y")).toBe("C:\\x");
    expect(dirnamePath("C:\\x")).toBe("C:\\");
    expect(dirnamePath("C:\\")).toBe("C:\\");
    expect(rootOf("C:\\x\\y")).toBe("C:\\");
    let dir = "C:\\Users\\ana\\proj\\src\\lib";
    const seen: string[] = [];
    while (dirnamePath(dir) !== dir) {
      seen.push(dir);
      dir = dirnamePath(dir);
    }
    expect(seen).toEqual(["C:\\Users\\ana\\proj\\src\\lib", "C:\\Users\\ana\\proj\\src", "C:\\Users\\ana\\proj", "C:\\Users\\ana", "C:\\Users"]);
    expect(dir).toBe("C:\\");
    expect(basenamePath("C:\\Users\\ana\\notes.md")).toBe("notes.md");
    expect(basenamePath("C:\\")).toBe("");
  });

  test("relative paths resolve against a Windows base with either separator", () => {
    expect(resolvePath("C:\\work", "src\\a.ts")).toBe("C:\\work\\src\\a.ts");
    expect(resolvePath("C:\\work", "src/a.ts")).toBe("C:\\work\\src\\a.ts");
    expect(resolvePath("C:\\work\\src", "..\\..\\..\\Windows")).toBe("C:\\Windows");
    expect(resolvePath("C:\\work", "D:\\data")).toBe("D:\\data");
    // A rooted path without a drive lands on the base's drive.
    expect(resolvePath("C:\\work", "\\Windows\\System32")).toBe("C:\\Windows\\System32");
    expect(resolvePath("D:\\work", "/etc/passwd")).toBe("D:\\etc\\passwd");
    expect(resolvePath("/", "Z:\\home\\ana\\.agent")).toBe("Z:\\home\\ana\\.agent");
    expect(joinPath("C:\\work", ".agent", "hooks")).toBe("C:\\work\\.agent\\hooks");
  });

  test("inside ignores case and separators, and never crosses drives", () => {
    expect(isInside("c:\\WORK\\src\\a.ts", "C:\\work")).toBe(true);
    expect(isInside("C:/work/src", "C:\\work")).toBe(true);
    expect(isInside("C:\\workshop", "C:\\work")).toBe(false);
    expect(isInside("D:\\work\\x", "C:\\work")).toBe(false);
    expect(isInside("C:\\anything", "C:\\")).toBe(true);
    expect(isInside("/work/x", "C:\\work")).toBe(false);
    expect(relativeInside("C:\\work\\src\\a.ts", "c:\\work")).toBe("src\\a.ts");
    expect(relativeInside("C:\\work", "C:\\work")).toBe(".");
    expect(relativeInside("C:\\x\\y", "C:\\")).toBe("x\\y");
  });
});

describe("Windows UNC paths", () => {
  test("the share is the root", () => {
    expect(normalizePath("\\\\server\\share\\dir\\..\\file.txt")).toBe("\\\\server\\share\\file.txt");
    expect(normalizePath("\\\\server\\share")).toBe("\\\\server\\share\\");
    expect(normalizePath("\\\\server\\share\\..\\..\\other")).toBe("\\\\server\\share\\other");
    expect(dirnamePath("\\\\server\\share\\dir")).toBe("\\\\server\\share\\");
    expect(dirnamePath("\\\\server\\share\\")).toBe("\\\\server\\share\\");
    expect(rootOf("\\\\server\\share\\a\\b")).toBe("\\\\server\\share\\");
    expect(resolvePath("\\\\server\\share\\proj", "src/a.ts")).toBe("\\\\server\\share\\proj\\src\\a.ts");
    expect(resolvePath("\\\\server\\share\\proj", "\\top")).toBe("\\\\server\\share\\top");
    expect(isInside("\\\\SERVER\\Share\\proj\\x", "\\\\server\\share\\proj")).toBe(true);
    expect(isInside("\\\\server\\other\\proj", "\\\\server\\share")).toBe(false);
    expect(relativeInside("\\\\server\\share\\proj\\a", "\\\\server\\share\\")).toBe("proj\\a");
  });

  test("long-path prefixes name the same places", () => {
    expect(normalizePath("\\\\?\\C:\\very\\long")).toBe("C:\\very\\long");
    expect(normalizePath("\\\\?\\UNC\\server\\share\\x")).toBe("\\\\server\\share\\x");
    expect(isInside("\\\\?\\C:\\work\\a", "C:\\work")).toBe(true);
  });
});
