/**
 * Config location and tool confinement on real Windows path strings (`C:\…`, `\\server\share\…`),
 * over an in-memory file system that behaves as NTFS does: case-insensitive names, either separator,
 * realpath answering in the canonical `C:\` spelling. The upward walk to the project root must end
 * at the drive or share root, and tool paths inside the workspace must be accepted.
 */
import { describe, expect, test } from "bun:test";
import type { FileStat, FileSystem } from "../../src/runtime/types.ts";
import { agentHomeDir, findProjectRoot, locateConfig } from "../../src/config/paths.ts";
import { resolveInWorkspace, displayPath } from "../../src/tools/paths.ts";
import { dirnamePath, normalizePath } from "../../src/util/path-utils.ts";

function windowsFs(entries: Record<string, "file" | "dir">): FileSystem & { stats: number } {
  const table = new Map<string, { kind: "file" | "dir"; spelled: string }>();
  const key = (path: string): string => normalizePath(path).toLowerCase();
  const add = (path: string, kind: "file" | "dir"): void => {
    const spelled = normalizePath(path);
    table.set(key(spelled), { kind, spelled });
    const parent = dirnamePath(spelled);
    if (parent !== spelled && !table.has(key(parent))) add(parent, "dir");
  };
  for (const [path, kind] of Object.entries(entries)) add(path, kind);
  const statOf = (path: string): FileStat | undefined => {
    fake.stats++;
    const entry = table.get(key(path));
    return entry ? { kind: entry.kind, mode: 0o666, size: 0, mtimeMs: 0 } : undefined;
  };
  const refuse = (): never => {
    throw new Error("not used by these tests");
  };
  const fake = {
    stats: 0,
    stat: statOf,
    lstat: statOf,
    realpath: (path: string) => table.get(key(path))?.spelled,
    readText: () => undefined,
    readBytes: () => undefined,
    readdir: () => [],
    isExecutable: () => false,
    writeText: refuse,
    writeBytes: refuse,
    appendText: refuse,
    mkdir: refuse,
    mkdtemp: refuse,
    rm: refuse,
    chmod: refuse,
    rename: refuse,
  };
  return fake;
}

describe("project root on Windows paths", () => {
  test("found from a nested cwd given with forward slashes and other case", () => {
    const fs = windowsFs({ "C:\\Users\\ana\\proj\\.git": "dir", "C:\\Users\\ana\\proj\\src\\lib": "dir" });
    const found = findProjectRoot(fs, { cwd: "c:/users/ana/proj/src/lib", userHome: "C:\\Users\\ana", agentHome: "C:\\Users\\ana\\.agent" });
    expect(found.root.toLowerCase()).toBe("c:\\users\\ana\\proj");
    expect(found.projectScope).toBe(true);
  });

  test("with no marker the walk ends at the drive root and the cwd is the root", () => {
    const fs = windowsFs({ "C:\\x\\y": "dir" });
    const found = findProjectRoot(fs, { cwd: "C:\\x\\y", userHome: "C:\\Users\\ana", agentHome: "C:\\Users\\ana\\.agent" });
    expect(found).toEqual({ root: "C:\\x\\y", projectScope: true });
    // Three directories, each asked about `.agent` and `.git` a bounded number of times.
    expect(fs.stats).toBeLessThan(40);
  });

  test("a UNC share is a root too", () => {
    const fs = windowsFs({ "\\\\nas\\team\\repo\\.agent": "dir", "\\\\nas\\team\\repo\\docs": "dir", "\\\\nas\\team\\loose\\dir": "dir" });
    const home = { userHome: "C:\\Users\\ana", agentHome: "C:\\Users\\ana\\.agent" };
    expect(findProjectRoot(fs, { cwd: "\\\\nas\\team\\repo\\docs", ...home }).root).toBe("\\\\nas\\team\\repo");
    expect(findProjectRoot(fs, { cwd: "\\\\nas\\team\\loose\\dir", ...home }).root).toBe("\\\\nas\\team\\loose\\dir");
  });

  test("a Windows AGENT_HOME is absolute, never joined onto the cwd", () => {
    expect(agentHomeDir({ AGENT_HOME: "Z:\\home\\ana\\.agent" }, "C:\\Users\\ana", "C:\\proj")).toBe("Z:\\home\\ana\\.agent");
    expect(agentHomeDir({ AGENT_HOME: "\\\\nas\\homes\\ana\\.agent" }, "C:\\Users\\ana", "C:\\proj")).toBe("\\\\nas\\homes\\ana\\.agent");
    expect(agentHomeDir({}, "C:\\Users\\ana", "C:\\proj")).toBe("C:\\Users\\ana\\.agent");
    const fs = windowsFs({ "C:\\proj\\.git": "file" });
    const location = locateConfig(fs, { env: { AGENT_HOME: "Z:\\home\\ana\\.agent" }, homedir: "C:\\Users\\ana", cwd: "C:\\proj" });
    expect(location.files.map((file) => file.path)).toEqual([
      "Z:\\home\\ana\\.agent\\config.toml",
      "Z:\\home\\ana\\.agent\\settings.json",
      "C:\\proj\\.agent\\config.toml",
      "C:\\proj\\.agent\\settings.json",
    ]);
  });
});

describe("tool paths on Windows", () => {
  const fs = windowsFs({ "C:\\work\\src\\a.ts": "file", "C:\\Windows\\System32\\drivers\\etc\\hosts": "file", "D:\\other": "dir" });
  const at = (path: string) => resolveInWorkspace(fs, { cwd: "C:\\work", workspaceRoot: "C:\\work", path });

  test("paths inside the workspace are accepted in every spelling, new files too", () => {
    expect(at("src\\a.ts")).toEqual({ ok: true, path: "C:\\work\\src\\a.ts" });
    expect(at("src/a.ts")).toEqual({ ok: true, path: "C:\\work\\src\\a.ts" });
    expect(at("C:\\work\\src\\a.ts")).toEqual({ ok: true, path: "C:\\work\\src\\a.ts" });
    expect(at("c:/WORK/src/a.ts").ok).toBe(true);
    expect(at("src\\new\\b.ts")).toEqual({ ok: true, path: "C:\\work\\src\\new\\b.ts" });
    expect(displayPath("C:\\work", "C:\\work\\src\\a.ts")).toBe("src\\a.ts");
  });

  test("paths outside are refused: another folder, another drive, a share, a rooted path", () => {
    for (const path of [
      "..\\Windows\\System32\\drivers\\etc\\hosts",
      "C:\\Windows\\System32",
      "D:\\other\\x",
      "\\\\nas\\share\\x",
      "\\Windows",
      "/etc/passwd",
      "C:\\workshop\\x",
    ]) {
      expect(at(path)).toEqual({ ok: false, message: `path outside the workspace: ${path}` });
    }
  });
});
