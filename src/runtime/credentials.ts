/**
 * Credentials out of the agent's initial environment. Stripping them from each
 * child's env is not enough: any child can read `/proc/<agent pid>/environ` (and its ancestors'),
 * which is the environment the agent was exec'd with, whatever `process.env` says later.
 *
 * So at start, when a credential variable is present, the agent writes those variables to a
 * memfd (no CLOEXEC), and re-execs itself (same pid, same argv) with an environment that lacks
 * them plus `AGENT_CREDENTIAL_FD=<fd>`. The new image reads the memfd, closes it at once (before any
 * child exists) and keeps the values in memory only: `runtime.env()` returns them, `process.env`
 * and `/proc/<pid>/environ` do not hold them. Linux + Bun only (execve and memfd_create via FFI);
 * elsewhere the variables only leave `process.env`, and the README says what that leaves open.
 * Without a credential variable nothing happens (no re-exec, no cost).
 */
import { closeSync, fstatSync, readSync, writeSync } from "node:fs";
import { loadLibc } from "./libc.ts";

export const CREDENTIAL_FD_VAR = "AGENT_CREDENTIAL_FD";

/** Credentials kept in memory only; merged into `runtime.env()`. */
let held: Record<string, string> = {};

export function heldCredentials(): Readonly<Record<string, string>> {
  return held;
}

export type Isolation =
  /** No credential variable in the environment. */
  | { readonly kind: "none" }
  /** This image was re-exec'd and received the credentials over the memfd. */
  | { readonly kind: "received"; readonly names: readonly string[] }
  /** Could not re-exec: the values left `process.env` but stay in the initial environment. */
  | { readonly kind: "in-memory"; readonly names: readonly string[]; readonly reason: string };

function isStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((entry) => typeof entry === "string");
}

/** Reads and closes the hand-over memfd; `{}` when it is unusable. */
function receive(fdText: string): Record<string, string> {
  const fd = Number(fdText);
  if (!Number.isInteger(fd) || fd < 3) return {};
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const read = readSync(fd, buffer, at, size - at, at);
      if (read <= 0) break;
      at += read;
    }
    const parsed: unknown = JSON.parse(buffer.subarray(0, at).toString("utf8"));
    return isStringRecord(parsed) ? parsed : {};
  } catch {
    return {};
  } finally {
    try {
      closeSync(fd);
    } catch {
      // not ours after all
    }
  }
}

/**
 * The proxy variables the runtime's `fetch` reads from `process.env` on each request. One holding a
 * password (`http://user:pass@proxy:3128`) is a credential by shape and left with the others; put
 * back into `process.env` (never into the exec'd environment, so `/proc/<pid>/environ` still lacks
 * it), provider requests keep going through the proxy, its credentials included. Children still
 * get none of it: their environment is built by stripping (D18), which removes it by shape again.
 */
const PROXY_VARS: ReadonlySet<string> = new Set(["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]);

function restoreProxies(credentials: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(credentials)) if (PROXY_VARS.has(name)) process.env[name] = value;
}

const PR_SET_DUMPABLE = 4;

/**
 * Once the agent holds credentials in memory, a process of the same user must not read them from
 * `/proc/<pid>/mem` (or `environ`, or attach with ptrace): with the dumpable flag off, the kernel
 * allows that to root only (CAP_SYS_PTRACE). execve resets the flag, so this runs in the image that
 * received the hand-over. Linux + Bun only (prctl through FFI); where it fails or is impossible
 * the memory stays readable to the same user, as docs/security.md says. Also turns off core dumps.
 */
async function becomeUndumpable(): Promise<void> {
  const loaded = await loadLibc();
  if (loaded.ok) undumpable = loaded.libc.prctl(PR_SET_DUMPABLE, 0) === 0;
  dumpableProblem = !loaded.ok ? loaded.reason : undumpable ? null : "prctl(PR_SET_DUMPABLE) failed";
}

let undumpable = false;
/** Why the last `becomeUndumpable` did not take effect; null when it did or never ran. */
let dumpableProblem: string | null = null;

/**
 * What `agent hooks validate` reports: whether the agent can keep secrets in its memory from other
 * processes of the user (PR_SET_DUMPABLE: Linux under Bun), with the reason where it cannot. The
 * outcome of an attempt in this process wins over what the platform promises.
 */
export function memoryProtectionStatus(): { readonly possible: true } | { readonly possible: false; readonly reason: string } {
  if (dumpableProblem !== null) return { possible: false, reason: dumpableProblem };
  if (process.platform !== "linux") return { possible: false, reason: `not Linux (${process.platform})` };
  if (typeof Reflect.get(globalThis, "Bun") === "undefined") return { possible: false, reason: "needs Bun's FFI (running on Deno or Node)" };
  return { possible: true };
}

/** Whether `becomeUndumpable` took effect in this process (for `agent hooks validate` and tests). */
export function isUndumpable(): boolean {
  return undumpable;
}

/** argv for re-executing this very program: the compiled binary, or the runtime plus its script. */
function selfArgv(): string[] {
  const script = process.argv[1] ?? "";
  const rest = process.argv.slice(2);
  // A compiled binary's script lives in Bun's embedded file system: the executable alone restarts it.
  if (script.startsWith("/$bunfs/") || script.startsWith("B:/~BUN/")) return [process.execPath, ...rest];
  return [process.execPath, ...process.execArgv, script, ...rest];
}

/**
 * Call first thing in `main.ts` (after `--version`). `isCredential` is D18's classifier. Only
 * returns when the environment is clean or the hand-over already happened (or cannot happen).
 */
export async function isolateCredentials(isCredential: (name: string, value: string) => boolean): Promise<Isolation> {
  const handover = process.env[CREDENTIAL_FD_VAR];
  if (handover !== undefined) {
    delete process.env[CREDENTIAL_FD_VAR];
    held = receive(handover);
    restoreProxies(held);
    await becomeUndumpable();
    return { kind: "received", names: Object.keys(held) };
  }
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (typeof value === "string" && isCredential(name, value)) found[name] = value;
  }
  const names = Object.keys(found);
  if (names.length === 0) return { kind: "none" };

  // Without the re-exec the initial environment still holds them: undumpable, at least no other
  // process of the user reads `/proc/<pid>/environ` (where prctl works at all).
  const inMemory = async (reason: string): Promise<Isolation> => {
    for (const name of names) delete process.env[name];
    held = found;
    restoreProxies(held);
    await becomeUndumpable();
    return { kind: "in-memory", names, reason };
  };
  const loaded = await loadLibc();
  if (!loaded.ok) return inMemory(loaded.reason);
  const fd = loaded.libc.memfdCreate("agent-credentials");
  if (fd < 0) return inMemory("memfd_create failed");
  try {
    const bytes = Buffer.from(JSON.stringify(found), "utf8");
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch {
    closeSync(fd);
    return inMemory("could not write the credential memfd");
  }
  const envp: string[] = [];
  for (const [name, value] of Object.entries(process.env)) {
    if (typeof value === "string" && !(name in found) && name !== CREDENTIAL_FD_VAR) envp.push(`${name}=${value}`);
  }
  envp.push(`${CREDENTIAL_FD_VAR}=${fd}`);
  const argv = selfArgv();
  loaded.libc.execve(process.execPath, argv, envp);
  // Only reached when execve failed.
  closeSync(fd);
  return inMemory("execve failed");
}
