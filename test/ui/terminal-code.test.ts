/**
 * Code blocks in a real terminal (tmux), streamed from a local OpenAI-wire server that spreads the
 * reply over many deltas: highlighted by the fence's language (keywords, strings, comments,
 * numbers; a diff's added and removed lines), an unknown language coloured as a whole, model text
 * still escaped inside a highlighted block, and no escapes at all under NO_COLOR.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { makeWorld } from "../support/cli.ts";
import { startFakeOpenAI, type FakeServer } from "../support/fake-openai.ts";
import { PROMPT, withPane } from "./tmux.ts";

const REPLY = [
  "Here it is:",
  "```ts",
  'const answer = 42; // the "answer"',
  "function greet(name: string) { return `hi ${name}`; }",
  "```",
  "```diff",
  "-let old = 1;",
  "+let fresh = 2;",
  "```",
  "```bash",
  'printf "\x1b[31mred\x1b[0m" # an ESC from the model',
  "```",
  "```cobol",
  "DISPLAY 'unknown'.",
  "```",
  "done.",
].join("\n");

let servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
});

async function openai(): Promise<string[]> {
  const server = await startFakeOpenAI([{ text: REPLY }]);
  servers.push(server);
  return ["--provider", "openai", "--model", "m", "--base-url", `${server.url}/v1`];
}

describe("code blocks", () => {
  test("highlighted per language while streaming; an unknown language coloured as a whole; an ESC in the code stays escaped", async () => {
    const w = makeWorld();
    await withPane(w, await openai(), { noColor: false, env: { OPENAI_API_KEY: "sk-test-not-real" } }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("show me code", "Enter");
      await pane.waitFor("done.");
      const screen = await pane.waitFor(PROMPT);
      // The text as written: the model's ESC shows as \x1b, never as a colour.
      expect(screen).toContain('printf "\\x1b[31mred\\x1b[0m" # an ESC from the model');
      // tmux re-encodes attributes with resets and default-background codes between them: dropped.
      const escaped = pane.screenWithEscapes().replace(/\x1b\[(0|49)m/g, "");
      expect(escaped).not.toContain("\x1b[31mred");
      // Keywords magenta, strings green, numbers yellow, comments dim.
      expect(escaped).toContain('\x1b[35mconst\x1b[39m answer = \x1b[33m42\x1b[39m; \x1b[2m// the "answer"');
      expect(escaped).toContain("\x1b[35mreturn\x1b[39m \x1b[32m`hi ${name}`");
      expect(escaped).toContain('printf \x1b[32m"\\x1b[31mred\\x1b[0m"\x1b[39m');
      expect(escaped).toContain("\x1b[2m# an ESC from the model");
      // A diff: removed lines red, added lines green.
      expect(escaped).toContain("\x1b[31m-let old = 1;");
      expect(escaped).toContain("\x1b[32m+let fresh = 2;");
      // No grammar for cobol: today's code colour, the whole line.
      expect(escaped).toContain("\x1b[33mDISPLAY 'unknown'.");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("under NO_COLOR the same reply has no escapes at all, and the ESC still shows escaped", async () => {
    const w = makeWorld();
    await withPane(w, await openai(), { env: { OPENAI_API_KEY: "sk-test-not-real" } }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("show me code", "Enter");
      await pane.waitFor("done.");
      const screen = await pane.waitFor(PROMPT);
      expect(screen).toContain('```ts\nconst answer = 42; // the "answer"\n');
      expect(screen).toContain('printf "\\x1b[31mred\\x1b[0m" # an ESC from the model');
      expect(pane.screenWithEscapes()).not.toContain("\x1b[");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);
});
