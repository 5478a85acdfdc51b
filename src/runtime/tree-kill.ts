/**
 * Windows has neither process groups nor signals: `taskkill /T /F /PID pid` ends the child and every
 * process it started (the tree the group kill reaches on Unix). Any signal becomes this forced kill,
 * so the grace between SIGTERM and SIGKILL is only a wait there. Where taskkill refuses `/T` (Wine's
 * does) or is missing, the child itself is still terminated; its descendants then may outlive it.
 * Never throws.
 */
import { spawnSync } from "node:child_process";

/** taskkill's exit code when the process is already gone. */
const TASKKILL_NOT_FOUND = 128;

export function windowsKillTree(pid: number): void {
  try {
    const run = spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], { stdio: "ignore", windowsHide: true, timeout: 10_000 });
    if (run.status === 0 || run.status === TASKKILL_NOT_FOUND) return;
    process.kill(pid, "SIGKILL");
  } catch {
    // A vanished tree is the goal, not an error.
  }
}
