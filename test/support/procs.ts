/**
 * Process-table helpers for tests: which processes of a process group are still alive.
 * Reads /proc (Linux) and falls back to `ps -o pid=,stat= -g`; works under Bun, Deno and Node
 * (no bun:test import). Zombies (state Z) count as dead: they hold no resources but a table slot,
 * and reaping reparented grandchildren is init's job, not the agent's.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

export interface ProcInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** One-letter state: R, S, D, T, Z, … */
  readonly state: string;
}

/** Parses /proc/<pid>/stat; the command name may contain spaces and parens, so split after the last ')'. */
export function procInfo(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid, sid] = rest;
  if (state === undefined || ppid === undefined || pgid === undefined || sid === undefined) return null;
  return { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), state };
}

function groupViaProc(pgid: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const info = procInfo(Number(name));
    if (info && info.pgid === pgid) out.push(info);
  }
  return out;
}

function groupViaPs(pgid: number): ProcInfo[] {
  let text = "";
  try {
    text = execFileSync("ps", ["-o", "pid=,ppid=,stat=", "-g", String(pgid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return text
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 3)
    .map(([pid, ppid, stat]) => ({ pid: Number(pid), ppid: Number(ppid), pgid, sid: -1, state: (stat ?? "?").slice(0, 1) }));
}

/** Every process (zombies included) whose process group is `pgid`. */
export function groupMembers(pgid: number): ProcInfo[] {
  return existsSync("/proc/self/stat") ? groupViaProc(pgid) : groupViaPs(pgid);
}

/** Pids of the group's live (non-zombie) members. */
export function liveGroupPids(pgid: number): number[] {
  return groupMembers(pgid)
    .filter((p) => p.state !== "Z")
    .map((p) => p.pid);
}

export function isAlive(pid: number): boolean {
  const info = procInfo(pid);
  if (info) return info.state !== "Z";
  if (existsSync("/proc/self/stat")) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The one poller of the suite: resolves once `check` is true, false after `withinMs` (never sleeps
 * a fixed time to "let something happen"; bounds are generous for a loaded machine).
 */
export async function waitUntil(check: () => boolean, withinMs = 20_000, everyMs = 10): Promise<boolean> {
  const end = Date.now() + withinMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls until no live member of `pgid` remains; returns the survivors (empty = all gone). Generous bound. */
export async function waitGroupGone(pgid: number, withinMs = 3000): Promise<number[]> {
  await waitUntil(() => liveGroupPids(pgid).length === 0, withinMs, 25);
  return liveGroupPids(pgid);
}

/** Best-effort cleanup for a test's leftovers: SIGKILL the group, ignoring errors. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Waits until a child's signal file exists (the child writes it once it is ready: trap installed,
 * children started), so a test never sleeps to "let children start". Throws after a generous bound.
 */
export async function waitForFile(path: string, withinMs = 20_000): Promise<void> {
  if (!(await waitUntil(() => existsSync(path), withinMs))) throw new Error(`${path} did not appear within ${withinMs} ms`);
}

/** Like `waitForFile`, for a file the child writes a value into (a pid): resolves with its trimmed text once non-empty. */
export async function waitForText(path: string, withinMs = 20_000): Promise<string> {
  let text = "";
  const found = await waitUntil(() => {
    text = existsSync(path) ? readFileSync(path, "utf8").trim() : "";
    return text !== "";
  }, withinMs);
  if (!found) throw new Error(`${path} did not get a value within ${withinMs} ms`);
  return text;
}
