// Red team, (SEC-31, SEC-32): a lifecycle command that runs its script through
// a shell's `-c` string (`bash -c "source scripts/s.sh"`, `sh -c './scripts/s.sh'`) pinned nothing:
// the script name sits inside one quoted word, so neither the digest nor the spawn-time check saw
// it, and the model could rewrite it in accept-edits mode and have it run at once. Reproduced before
// the fix: the canary existed.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript } from "../support/cli.ts";
import { trust } from "./helpers.ts";

setDefaultTimeout(60_000);

const EDITS = ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "accept-edits", "hi"];

describe("a script named inside a shell -c string is pinned", () => {
  for (const command of ['bash -c "source scripts/s.sh"', "sh -c './scripts/s.sh; true'", 'bash -lc "cd . && . \\"$AGENT_PROJECT_DIR/scripts/s.sh\\""']) {
    test(`${command}: rewritten by the model, it does not run; the review lists the script`, () => {
      const w = makeWorld();
      w.file("scripts/s.sh", "#!/bin/sh\ntrue\n", { executable: true });
      w.file(".agent/config.toml", `[[hooks.lifecycle.post_tool]]\nhooks = [{ command = ${JSON.stringify(command)} }]\n`);
      trust(w);
      writeScript(
        w,
        [
          { tool_calls: [{ name: "write", arguments: { file_path: "scripts/s.sh", content: `#!/bin/sh\ntouch "${join(w.root, "pwned")}"\n` } }] },
          { tool_calls: [{ name: "read", arguments: { file_path: "scripts/s.sh" } }] },
          { text: "done" },
        ],
        "s.json",
      );
      const r = runCli(w, EDITS);
      expect(existsSync(join(w.root, "pwned"))).toBe(false);
      expect(r.stderr).toContain(`changed: ${join(w.project, "scripts/s.sh")}`);
      // The next start refuses (D17), naming the changed script.
      writeScript(w, [{ text: "done" }], "s.json");
      const again = runCli(w, EDITS);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("scripts/s.sh");
      expect(existsSync(join(w.root, "pwned"))).toBe(false);
    });
  }
});
