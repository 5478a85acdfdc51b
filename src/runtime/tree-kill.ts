/**
 * Windows has neither process groups nor signals: `taskkill /T /F /PID pid` ends the child and every
 * process it started (the tree the group kill reaches on Unix). Any signal becomes this forced kill,
 * so the grace between SIGTERM and SIGKILL is only a wait there. Never throws.
 */
import { spawnSync } from "node:child_process";

export function windowsKillTree(pid: number): void {
  try {
    spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], { stdio: "ignore", windowsHide: true, timeout: 10_000 });
  } catch {
    // A vanished tree is the goal, not an error.
  }
}
