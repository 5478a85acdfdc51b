/**
 * Slash commands in a real terminal (tmux): what /help, /model, /permissions, /mcp, /sessions and
 * /cost show, /resume continuing another session of the project, and /trust and /hooks reload
 * offering the trust review in place. Script provider, real hook scripts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, sessionIdOfName, writeScript, type World } from "../support/cli.ts";
import { PROMPT, withPane, type Pane } from "./tmux.ts";

const SCRIPT = ["--script", "script.json"];

async function command(pane: Pane, text: string, shows: string | RegExp): Promise<string> {
  await pane.waitFor(PROMPT);
  pane.keys(text, "Enter");
  return pane.waitFor(shows);
}

async function quit(pane: Pane): Promise<void> {
  await pane.waitFor(PROMPT);
  pane.keys("C-d");
  expect(await pane.exited()).toBe(0);
}

function sessionFiles(w: World): string[] {
  const dir = join(w.agentHome, "sessions");
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((file) => file.endsWith(".jsonl"))
        .sort()
    : [];
}

describe("slash commands", () => {
  test("/help, /model, /permissions, /mcp, /cost and an unknown command say what they know", async () => {
    const w = makeWorld();
    writeScript(w, []);
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ permissions: { allow: ["bash(ls*)"], deny: ["bash(rm*)"] } }));
    await withPane(w, [...SCRIPT, "--permission-mode", "accept-edits"], { rows: 60 }, async (pane) => {
      const help = await command(pane, "/help", "Ctrl-L clears the screen");
      for (const name of ["/hooks reload", "/trust", "/model", "/permissions", "/mcp", "/resume", "/sessions", "/compact", "/clear", "/cost", "/exit"])
        expect(help).toContain(name);
      await command(pane, "/model", "model: script (provider script)");
      const permissions = await command(pane, "/permissions", "permission mode: accept-edits");
      await pane.waitFor("deny: bash(rm*)");
      expect(permissions).toContain("allow: bash(ls*)");
      await command(pane, "/mcp", "no MCP servers configured");
      await command(pane, "/cost", "no token usage known");
      await command(pane, "/nope", "agent: unknown command /nope (see /help)");
      await quit(pane);
    });
  }, 90_000);

  test("/sessions lists this project's sessions; /resume ID continues one with its history shown", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "the first answer" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await command(pane, "remember the blue door", "the first answer");
      await quit(pane);
    });
    const [first = ""] = sessionFiles(w);
    const id = sessionIdOfName(first);
    writeScript(w, [{ text: "the second answer" }, { text: "continued answer" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await command(pane, "something else", "the second answer");
      const listed = await command(pane, "/sessions", "sessions of this project");
      expect(listed).toContain(id);
      expect(listed).toContain("remember the blue door");
      await command(pane, `/resume ${id}`, `agent: resuming session ${id}`);
      await pane.waitFor("> remember the blue door");
      await command(pane, "and now?", "continued answer");
      await quit(pane);
    });
    const records = readJsonl(readFileSync(join(w.agentHome, "sessions", first), "utf8"));
    expect(records.filter((x) => x.type === "user").map((x) => x.content)).toEqual(["remember the blue door", "and now?"]);
  }, 120_000);

  test("/hooks reload of a changed project shows the review in place; yes trusts it and the new hook runs", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "a" }, { text: "b" }]);
    const log = join(w.root, "hook-log");
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { user_prompt_submit: [{ hooks: [{ command: "./run.sh" }] }] } } }));
    w.file("run.sh", `#!/bin/sh\ncat > /dev/null\necho v1 >> ${log}\n`, { executable: true });
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor("trust this project and run its hooks?");
      pane.keys("y");
      await command(pane, "one", /^a$/m);
      w.file("run.sh", `#!/bin/sh\ncat > /dev/null\necho v2 >> ${log}\n`, { executable: true });
      await command(pane, "/hooks reload", "trust this project and run these hooks?");
      pane.keys("y");
      await pane.waitFor("agent: hooks reloaded");
      await command(pane, "two", /^b$/m);
      await quit(pane);
    });
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["v1", "v2"]);
  }, 120_000);

  test("/trust reviews a project changed on disk and, on no, changes nothing", async () => {
    const w = makeWorld();
    writeScript(w, []);
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: "./start.sh" }] }] } } }));
    w.file("start.sh", "#!/bin/sh\ncat > /dev/null\n", { executable: true });
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor("trust this project and run its hooks?");
      pane.keys("y");
      await command(pane, "/trust", "agent: this project is trusted as it is on disk");
      w.file("start.sh", "#!/bin/sh\ncat > /dev/null\necho changed\n", { executable: true });
      await command(pane, "/trust", "trust this project and run these hooks?");
      pane.keys("n");
      await pane.waitFor("agent: trust unchanged");
      await quit(pane);
    });
  }, 90_000);
});
