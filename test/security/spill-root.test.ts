// The payload_ref spill root `$TMPDIR/agent-hook-payloads` is used and swept only
// when it is a real directory (lstat, not a symlink) owned by the agent's uid with mode 0700. A
// symlink to a victim directory, or a directory someone else prepared, is refused with one line,
// the victim's files stay, and spills fall back to omitted_too_large summaries (SEC-22, SEC-23).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileSystem } from "../../src/runtime/types.ts";
import { claimSpillRoot, cleanStaleSpills, createSpiller, SPILL_DIR_NAME } from "../../src/hooks/spill.ts";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

setDefaultTimeout(60_000);

const runtime = createRuntime();
const BIG = "a".repeat(1024 * 1024 + 100);
const HOUR_AGO = new Date(Date.now() - 60 * 60 * 1000);

/** A victim directory full of old files (older than the sweep age), each of which must survive. */
function victim(w: World): string {
  const dir = join(w.root, "victim");
  mkdirSync(join(dir, "sub"), { recursive: true });
  writeFileSync(join(dir, "a.txt"), "precious");
  writeFileSync(join(dir, "sub", "b.txt"), "precious too");
  for (const name of ["a.txt", "sub"]) utimesSync(join(dir, name), HOUR_AGO, HOUR_AGO);
  return dir;
}

function world(): { w: World; tmp: string; env: Record<string, string>; root: string } {
  const w = makeWorld();
  const tmp = join(w.root, "tmp");
  mkdirSync(tmp);
  return { w, tmp, env: w.env({ TMPDIR: tmp }), root: join(tmp, SPILL_DIR_NAME) };
}

/** A user list hook with payload full that saves its envelope; the script writes more than 1 MiB. */
function bigWriteRun(w: World): void {
  const hook = w.file(join(w.agentHome, "save.sh"), `#!/bin/sh\ncat > "${w.root}/stdin.json"\n`, { executable: true });
  w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "save", command: hook, payload: "full" }] } }));
  writeScript(w, [{ tool_calls: [{ name: "write", arguments: { file_path: "big.txt", content: BIG } }] }, { text: "done" }], "s.json");
}

const RUN = ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--no-session", "hi"];

describe("spill root checks", () => {
  test("SEC-22 a spill root that is a symlink to a victim directory is refused: no file of the victim is deleted, spills fall back", async () => {
    const { w, env, root } = world();
    const target = victim(w);
    symlinkSync(target, root);
    bigWriteRun(w);
    const r = await runCliInProcess(w, RUN, { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`agent: spill directory ${root} is a symlink, not ours: refused`);
    expect(r.stderr.split("\n").filter((line) => line.includes("spill directory"))).toHaveLength(1);
    expect(readFileSync(join(target, "a.txt"), "utf8")).toBe("precious");
    expect(readFileSync(join(target, "sub", "b.txt"), "utf8")).toBe("precious too");
    expect(readdirSync(target).sort()).toEqual(["a.txt", "sub"]);
    // The payload did not go into the victim directory: the hook got a summary instead.
    const envelope = JSON.parse(readFileSync(join(w.root, "stdin.json"), "utf8"));
    expect(envelope.payload).toEqual({ inline: false, status: "omitted_too_large" });
    expect(envelope.payload_ref).toBeNull();
    expect(lstatSync(root).isSymbolicLink()).toBe(true);
    // `agent hooks test` sweeps at start too, and refuses the same way.
    const t = await runCliInProcess(w, ["hooks", "test", "session_start"], { env });
    expect(t.stderr).toContain(`spill directory ${root} is a symlink, not ours: refused`);
    expect(readdirSync(target).sort()).toEqual(["a.txt", "sub"]);
  });

  test("SEC-22 a spill root with group/other permission bits is refused, and its stale entries are left alone", async () => {
    const { w, env, root } = world();
    mkdirSync(join(root, "stale0001"), { recursive: true, mode: 0o755 });
    writeFileSync(join(root, "stale0001", "payload.json"), "{}");
    utimesSync(join(root, "stale0001"), HOUR_AGO, HOUR_AGO);
    chmodSync(root, 0o755);
    bigWriteRun(w);
    const r = await runCliInProcess(w, RUN, { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`agent: spill directory ${root} has mode 0755, not 0700: refused`);
    expect(existsSync(join(root, "stale0001", "payload.json"))).toBe(true);
    const envelope = JSON.parse(readFileSync(join(w.root, "stdin.json"), "utf8"));
    expect(envelope.payload.status).toBe("omitted_too_large");
  });

  test("SEC-22 a missing spill root is created 0700 by the first spill, and a private one is used and swept", async () => {
    const { w, env, root } = world();
    bigWriteRun(w);
    const r = await runCliInProcess(w, RUN, { env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("spill directory");
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const envelope = JSON.parse(readFileSync(join(w.root, "stdin.json"), "utf8"));
    expect(envelope.payload.status).toBe("referenced");
    expect(readdirSync(root)).toEqual([]);
  });

  test("SEC-22 a spill root owned by another uid is refused by claimSpillRoot, the sweep and the spiller", async () => {
    const { tmp, root } = world();
    mkdirSync(join(root, "stale0001"), { recursive: true, mode: 0o700 });
    utimesSync(join(root, "stale0001"), HOUR_AGO, HOUR_AGO);
    const uid = runtime.platform.uid ?? 0;
    // The file system reports a foreign owner, as lstat would for a directory another user made.
    const foreign: FileSystem = {
      ...runtime.fs,
      lstat: (path) => {
        const stat = runtime.fs.lstat(path);
        return stat && path === root ? { ...stat, uid: uid + 1 } : stat;
      },
    };
    const place = { tmpdir: tmp, uid };
    const claimed = claimSpillRoot(foreign, place);
    expect(claimed).toEqual({ ok: false, problem: `spill directory ${root} is owned by uid ${uid + 1}, not by you (uid ${uid})` });
    expect(cleanStaleSpills(foreign, place)).toBe(`spill directory ${root} is owned by uid ${uid + 1}, not by you (uid ${uid})`);
    expect(existsSync(join(root, "stale0001"))).toBe(true);
    expect(createSpiller(foreign, place, () => "x")(new Uint8Array([1]))).toBeNull();
    expect(existsSync(join(root, "x"))).toBe(false);
    // The same directory under the true owner is ours: swept.
    expect(cleanStaleSpills(runtime.fs, place)).toBeNull();
    expect(existsSync(join(root, "stale0001"))).toBe(false);
  });

  test("SEC-22 a spill root replaced by a symlink during a session is refused at the next spill", async () => {
    const { w, tmp, root } = world();
    const place = { tmpdir: tmp, uid: runtime.platform.uid };
    const spill = createSpiller(runtime.fs, place, () => runtime.randomId());
    const first = spill(new Uint8Array([1, 2, 3]));
    expect(first).not.toBeNull();
    rmSync(root, { recursive: true });
    const target = victim(w);
    symlinkSync(target, root);
    expect(spill(new Uint8Array([1, 2, 3]))).toBeNull();
    expect(readdirSync(target).sort()).toEqual(["a.txt", "sub"]);
  });
});
