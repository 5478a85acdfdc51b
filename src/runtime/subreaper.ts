/**
 * Escaped descendants. A hook or bash command can leave its process group and
 * session (`setsid -f sleep 30`), so killing the group misses it. On Linux the agent makes itself a
 * child subreaper (prctl PR_SET_CHILD_SUBREAPER): an orphaned descendant is then re-parented to the
 * agent instead of PID 1, and at exit every process still below the agent in /proc is SIGKILLed.
 * Elsewhere (Deno, Node, macOS, Windows) this is not possible; `agent hooks validate` says so.
 */
import { readFileSync, readdirSync } from "node:fs";
import { beforeExit } from "./common.ts";
import { loadLibc } from "./libc.ts";

const PR_SET_CHILD_SUBREAPER = 36;

export type SubreaperStatus = { readonly active: true } | { readonly active: false; readonly reason: string };

let status: SubreaperStatus | null = null;

/**
 * What `agent hooks validate` reports: the outcome of `becomeSubreaper` once it ran, else whether
 * this platform and runtime can do it at all (Linux and Bun's FFI).
 */
export function subreaperStatus(): SubreaperStatus {
  if (status !== null) return status;
  if (process.platform !== "linux") return { active: false, reason: `not Linux (${process.platform})` };
  if (typeof Reflect.get(globalThis, "Bun") === "undefined") return { active: false, reason: "needs Bun's FFI (running on Deno or Node)" };
  return { active: true };
}

/** Becomes a child subreaper and arranges the exit sweep; a no-op (with the reason) where impossible. */
export async function becomeSubreaper(): Promise<SubreaperStatus> {
  const loaded = await loadLibc();
  if (!loaded.ok) {
    status = { active: false, reason: loaded.reason };
    return status;
  }
  if (loaded.libc.prctl(PR_SET_CHILD_SUBREAPER, 1) !== 0) {
    status = { active: false, reason: "prctl(PR_SET_CHILD_SUBREAPER) failed" };
    return status;
  }
  status = { active: true };
  beforeExit(() => {
    killDescendants(process.pid);
  });
  return status;
}

/** pid → parent pid for every process in /proc (a process that vanished mid-scan is skipped). */
function parentMap(): Map<number, number> {
  const parents = new Map<number, number>();
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return parents;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may hold spaces and parens: the fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(name), Number(fields[1]));
    } catch {
      // gone already
    }
  }
  return parents;
}

/** Every live descendant of `root` (children, their children, …). */
export function descendantsOf(root: number): number[] {
  const parents = parentMap();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** SIGKILLs every descendant of `root`, twice over in case one forked during the first pass. Returns how many were signalled. */
export function killDescendants(root: number): number {
  let signalled = 0;
  const killed: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const pid of descendantsOf(root)) {
      try {
        process.kill(pid, "SIGKILL");
        signalled += 1;
        killed.push(pid);
      } catch {
        // already gone
      }
    }
  }
  awaitDeaths(killed, KILL_SETTLE_MS);
  return signalled;
}

/** How long the exit sweep waits for SIGKILLed descendants to actually die (a loaded machine delivers late). */
const KILL_SETTLE_MS = 1000;

/**
 * Blocks until every pid is gone or a zombie (dead, waiting to be reaped), at most `budgetMs`:
 * SIGKILL is asynchronous, and the agent's exit must not race the kernel delivering it, or a
 * process that was "killed" is still seen running after the agent is gone.
 */
function awaitDeaths(pids: readonly number[], budgetMs: number): void {
  const tick = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + budgetMs;
  let pending = pids.filter(isRunning);
  while (pending.length > 0 && Date.now() < deadline) {
    Atomics.wait(tick, 0, 0, 5);
    pending = pending.filter(isRunning);
  }
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
