// Test preload (bunfig.toml): every test process gets one private temp root holding its HOME,
// AGENT_HOME, XDG dirs and TMPDIR (so every mkdtemp of a test, and of every agent process it starts,
// lands inside it), no API keys, and the root removed when the process exits: `npm test` leaves
// nothing behind and never reads or writes the developer's real ~/.agent or talks to a real provider.
import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "agent-test-"));
const home = join(root, "home");
const tmp = join(root, "tmp");
mkdirSync(home, { recursive: true });
mkdirSync(tmp, { recursive: true });
process.env.TMPDIR = tmp;
process.env.HOME = home;
process.env.AGENT_HOME = join(home, ".agent");
process.env.XDG_CONFIG_HOME = join(home, ".config");
process.env.XDG_DATA_HOME = join(home, ".local", "share");
process.env.XDG_CACHE_HOME = join(home, ".cache");
process.env.XDG_STATE_HOME = join(home, ".local", "state");
for (const key of Object.keys(process.env)) {
  if (/API_KEY|_TOKEN$|^AGENT_(HOOKS|DEBUG)$/i.test(key)) delete process.env[key];
}
process.env.NO_COLOR = "1";

function removeRoot(): void {
  // Files a test made read-only or a directory without write bits must not keep the root alive.
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A stray child may still be writing into it; the OS temp cleaner gets what is left.
  }
}

// A preload runs once per test file in a worker that may not exit normally: remove the root after
// the file's last test, and again at exit for a worker that is torn down.
afterAll(removeRoot);
process.on("exit", removeRoot);
