// Test preload (bunfig.toml): every test process gets a private AGENT_HOME/HOME/XDG dirs and no API keys,
// so no test ever reads or writes the developer's real ~/.agent or talks to a real provider.
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "agent-test-"));
const home = join(root, "home");
mkdirSync(home, { recursive: true });
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
